import { Migration } from '@mikro-orm/migrations';

const CHANNEL = 'islet_clinic_statistics_changed';

/**
 * Announces every change to a clinic's copy of its patients' statistics (clinic_patient_period_stats)
 * on `islet_clinic_statistics_changed`, with the clinic's id, when the writing transaction
 * commits. Each instance keeps, per clinic, how many patients each summary filter holds
 * (src/domains/clinics/clinic-totals.ts) and forgets a clinic's counts when told. The copy
 * changes with every summary written for a patient of the clinic and every patient added or
 * removed, whatever wrote it, since its own triggers write it. Statement triggers with transition
 * tables, as the copy's: one notice per clinic a statement touched, not one per row.
 */
export class Migration20261128190000_clinic_statistics_notices extends Migration {
  override name = 'Migration20261128190000_clinic_statistics_notices';

  override up(): void | Promise<void> {
    this.addSql(`create function "clinic_period_stats_announce_change"() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then
          perform pg_notify('${CHANNEL}', clinic_id) from (select distinct clinic_id from removed) clinics;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          perform pg_notify('${CHANNEL}', clinic_id) from (select distinct clinic_id from added) clinics;
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger "clinic_period_stats_announce_insert" after insert on "clinic_patient_period_stats" referencing new table as added for each statement execute function "clinic_period_stats_announce_change"();`);
    this.addSql(`create trigger "clinic_period_stats_announce_update" after update on "clinic_patient_period_stats" referencing old table as removed new table as added for each statement execute function "clinic_period_stats_announce_change"();`);
    this.addSql(`create trigger "clinic_period_stats_announce_delete" after delete on "clinic_patient_period_stats" referencing old table as removed for each statement execute function "clinic_period_stats_announce_change"();`);
  }

  override down(): void | Promise<void> {
    for (const change of ['insert', 'update', 'delete'])
      this.addSql(`drop trigger if exists "clinic_period_stats_announce_${change}" on "clinic_patient_period_stats";`);
    this.addSql(`drop function if exists "clinic_period_stats_announce_change"();`);
  }
}
