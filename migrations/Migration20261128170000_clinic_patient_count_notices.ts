import { Migration } from '@mikro-orm/migrations';

/**
 * Announces every change to which patients a clinic has on `islet_clinic_patients_changed`, with
 * the clinic's id, when the writing transaction commits. Each instance keeps each clinic's count
 * of patients (src/domains/clinics/clinic-totals.ts) and forgets a clinic's when told. A trigger,
 * not the service's statements, sends the notice: rows written in SQL, and those a clinic's or an
 * account's deletion takes with it, are announced too. PostgreSQL sends one notice per clinic for
 * a transaction that adds thousands of its patients (it folds equal notices of a transaction).
 */
export class Migration20261128170000_clinic_patient_count_notices extends Migration {
  override name = 'Migration20261128170000_clinic_patient_count_notices';

  override up(): void | Promise<void> {
    this.addSql(`create function "clinic_patients_announce_change"() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'INSERT' then perform pg_notify('islet_clinic_patients_changed', old.clinic_id); end if;
        if tg_op <> 'DELETE' then perform pg_notify('islet_clinic_patients_changed', new.clinic_id); end if;
        return null;
      end $$;`);
    this.addSql(`create trigger "clinic_patients_announce_change" after insert or delete or update of "clinic_id"
      on "clinic_patients" for each row execute function "clinic_patients_announce_change"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "clinic_patients_announce_change" on "clinic_patients";`);
    this.addSql(`drop function if exists "clinic_patients_announce_change"();`);
  }
}
