import { Migration } from '@mikro-orm/migrations';

/**
 * Announces every change to who is a clinician of a clinic on `islet_clinician_changed`, with the
 * user's id, when the writing transaction commits. Each instance keeps, for the callers it
 * serves, whether they are clinicians anywhere (src/domains/clinics/clinician-memberships.ts) and forgets
 * a user when told. A trigger, not the service's statements, sends the notice: rows a clinic's
 * deletion takes with it (ON DELETE CASCADE) are announced too.
 */
export class Migration20261128150000_clinician_change_notices extends Migration {
  override name = 'Migration20261128150000_clinician_change_notices';

  override up(): void | Promise<void> {
    this.addSql(`create function "clinicians_announce_change"() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'INSERT' then perform pg_notify('islet_clinician_changed', old.user_id); end if;
        if tg_op <> 'DELETE' then perform pg_notify('islet_clinician_changed', new.user_id); end if;
        return null;
      end $$;`);
    this.addSql(`create trigger "clinicians_announce_change" after insert or delete or update of "user_id", "clinic_id"
      on "clinicians" for each row execute function "clinicians_announce_change"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "clinicians_announce_change" on "clinicians";`);
    this.addSql(`drop function if exists "clinicians_announce_change"();`);
  }
}
