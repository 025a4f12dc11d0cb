import { Migration } from '@mikro-orm/migrations';

const CHANNEL = 'islet_grants_changed';

/**
 * Announces every change to the grants an account received on `islet_grants_changed`, with the
 * grantee's id, when the writing transaction commits. Each instance keeps the grants each account
 * received (src/domains/permissions/received-grants.ts) to list them and to refuse access they do
 * not give, and forgets an account's when told. A trigger, not the service's statements, sends
 * the notice: grants a clinic's or an account's deletion takes with it, and those written in SQL,
 * are announced too. Statement triggers with transition tables: one notice per grantee a
 * statement touched, not one per row.
 */
export class Migration20261128200000_grant_notices extends Migration {
  override name = 'Migration20261128200000_grant_notices';

  override up(): void | Promise<void> {
    this.addSql(`create function "permission_grants_announce_change"() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then
          perform pg_notify('${CHANNEL}', grantee_id) from (select distinct grantee_id from removed) grantees;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          perform pg_notify('${CHANNEL}', grantee_id) from (select distinct grantee_id from added) grantees;
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger "permission_grants_announce_insert" after insert on "permission_grants" referencing new table as added for each statement execute function "permission_grants_announce_change"();`);
    this.addSql(`create trigger "permission_grants_announce_update" after update on "permission_grants" referencing old table as removed new table as added for each statement execute function "permission_grants_announce_change"();`);
    this.addSql(`create trigger "permission_grants_announce_delete" after delete on "permission_grants" referencing old table as removed for each statement execute function "permission_grants_announce_change"();`);
  }

  override down(): void | Promise<void> {
    for (const change of ['insert', 'update', 'delete'])
      this.addSql(`drop trigger if exists "permission_grants_announce_${change}" on "permission_grants";`);
    this.addSql(`drop function if exists "permission_grants_announce_change"();`);
  }
}
