import { Migration } from '@mikro-orm/migrations';

/**
 * Announces every change to an account row on the channel `islet_account_changed`, with the
 * account's id, when the writing transaction commits. Each instance keeps the accounts its callers
 * read most in memory (src/domains/users/account-cache.ts) and forgets one when told it changed.
 * A trigger, not the service's statements, sends the notice: whatever changes the row (the
 * service, another instance, a script, a later migration) is heard. Inserts need no notice: the
 * cache never remembers that an account is missing.
 */
export class Migration20261128140000_account_change_notices extends Migration {
  override name = 'Migration20261128140000_account_change_notices';

  override up(): void | Promise<void> {
    this.addSql(`create function "users_announce_change"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('islet_account_changed', old.id);
        return null;
      end $$;`);
    this.addSql(`create trigger "users_announce_update" after update on "users"
      for each row when (old is distinct from new) execute function "users_announce_change"();`);
    this.addSql(`create trigger "users_announce_delete" after delete on "users"
      for each row execute function "users_announce_change"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "users_announce_delete" on "users";`);
    this.addSql(`drop trigger if exists "users_announce_update" on "users";`);
    this.addSql(`drop function if exists "users_announce_change"();`);
  }
}
