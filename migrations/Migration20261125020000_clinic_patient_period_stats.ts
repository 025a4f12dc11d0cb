import { Migration } from '@mikro-orm/migrations';

const PERIODS = ['1d', '7d', '14d', '30d'];

/**
 * Locks the users of the `rows` transition table (in 64 buckets, so a bulk write takes at most
 * 64 locks, in order) until the transaction ends. A summary written while the same user joins a
 * clinic would otherwise leave the copy without that user's rows: each transaction's trigger is
 * blind to the other's uncommitted row. With the lock the second waits for the first to commit,
 * and its next statement (READ COMMITTED: a new snapshot per statement) sees the first's row.
 */
const lockUsers = (rows: string) =>
  `perform pg_advisory_xact_lock(hashtext('clinic_patient_period_stats'), bucket)
     from (select distinct abs(hashtext(user_id)) % 64 as bucket from ${rows}) buckets order by bucket;`;

/**
 * A per-clinic copy of glucose_period_stats, which the patient list's summary filters and sorts
 * read (src/domains/clinics/patient-filters.ts), as Tidepool's clinic service keeps a copy of
 * each patient's summary on the patient record.
 *
 * Why: a filtered list of a clinic of 10,000 patients probed glucose_period_stats once per
 * patient by its primary key (user_id, kind, period, previous): 10,000 probes into a partition
 * that holds every user of every clinic, 30-42 ms of the list's 50 ms budget. Here the clinic's
 * rows of one period are one range of one index, read in user order and merge-joined with the
 * clinic's patients (EXPLAIN ANALYZE of the benchmark's case: README, "Patient list speed").
 *
 * - Columns: a clinic id, then exactly the columns of glucose_period_stats in their order, so the
 *   triggers copy a row as `clinic_id, row.*`. A later migration that adds a statistic adds it
 *   to both tables, in the same place; a test compares the two column lists.
 * - Primary key (clinic_id, user_id, kind, period, previous), partitioned by kind and period as
 *   the source is: a list reads one partition's range of its clinic (previous is an index
 *   condition, so only matching rows are fetched), and removing a patient is one range per
 *   partition.
 * - Kept equal to glucose_period_stats joined with clinic_patients by the triggers below, in the
 *   transaction of the write that changes either side, whatever code writes it: the summary
 *   writer replaces a user's rows (delete and insert), a patient is added or removed, a clinic
 *   or account deleted. Statement triggers with transition tables: one statement per write, not
 *   one per row (a summary update writes 8 rows; a bulk load many more).
 * - No foreign key: the copy's rows go with their patient through the trigger on
 *   clinic_patients, so the ORM's schema needs no relation to express a composite key.
 */
export class Migration20261125020000_clinic_patient_period_stats extends Migration {
  override name = 'Migration20261125020000_clinic_patient_period_stats';

  override up(): void | Promise<void> {
    this.addSql(`create table "clinic_patient_period_stats" ("clinic_id" varchar(24) not null, like "glucose_period_stats", primary key ("clinic_id", "user_id", "kind", "period", "previous")) partition by range ("kind", "period", "previous");`);
    for (const kind of ['cgm', 'bgm'])
      for (const period of PERIODS)
        this.addSql(`create table "clinic_patient_period_stats_${kind}_${period}" partition of "clinic_patient_period_stats" for values from ('${kind}', '${period}', minvalue) to ('${kind}', '${period}', maxvalue);`);

    // A statistics write: rows it removed leave every clinic's copy, rows it added join the copy
    // of every clinic the user is a patient of.
    this.addSql(`create function "clinic_period_stats_follow_stats"() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    ${lockUsers('removed')}
  else
    ${lockUsers('added')}
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    delete from clinic_patient_period_stats c
     using removed r, clinic_patients p
     where p.user_id = r.user_id and c.clinic_id = p.clinic_id and c.user_id = r.user_id
       and c.kind = r.kind and c.period = r.period and c.previous = r.previous;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into clinic_patient_period_stats
    select p.clinic_id, a.* from added a join clinic_patients p on p.user_id = a.user_id;
  end if;
  return null;
end $$;`);
    this.addSql(`create trigger "clinic_period_stats_on_stats_insert" after insert on "glucose_period_stats" referencing new table as added for each statement execute function "clinic_period_stats_follow_stats"();`);
    this.addSql(`create trigger "clinic_period_stats_on_stats_update" after update on "glucose_period_stats" referencing old table as removed new table as added for each statement execute function "clinic_period_stats_follow_stats"();`);
    this.addSql(`create trigger "clinic_period_stats_on_stats_delete" after delete on "glucose_period_stats" referencing old table as removed for each statement execute function "clinic_period_stats_follow_stats"();`);

    // A patient added to a clinic brings their rows into its copy; a patient removed (or a clinic
    // or account deleted, which removes its patients) takes them out. Keys are never updated by
    // the service; if one is, the row moves with it.
    this.addSql(`create function "clinic_period_stats_follow_patients"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    ${lockUsers('added')}
    insert into clinic_patient_period_stats
    select a.clinic_id, s.* from added a join glucose_period_stats s on s.user_id = a.user_id;
  else
    ${lockUsers('removed')}
    delete from clinic_patient_period_stats c using removed r
     where c.clinic_id = r.clinic_id and c.user_id = r.user_id;
  end if;
  return null;
end $$;`);
    this.addSql(`create trigger "clinic_period_stats_on_patient_insert" after insert on "clinic_patients" referencing new table as added for each statement execute function "clinic_period_stats_follow_patients"();`);
    this.addSql(`create trigger "clinic_period_stats_on_patient_delete" after delete on "clinic_patients" referencing old table as removed for each statement execute function "clinic_period_stats_follow_patients"();`);
    this.addSql(`create function "clinic_period_stats_move_patient"() returns trigger language plpgsql as $$
begin
  update clinic_patient_period_stats set clinic_id = new.clinic_id, user_id = new.user_id
   where clinic_id = old.clinic_id and user_id = old.user_id;
  return null;
end $$;`);
    this.addSql(`create trigger "clinic_period_stats_on_patient_key_update" after update of "clinic_id", "user_id" on "clinic_patients" for each row when (old.clinic_id is distinct from new.clinic_id or old.user_id is distinct from new.user_id) execute function "clinic_period_stats_move_patient"();`);

    this.addSql(`insert into "clinic_patient_period_stats" select p."clinic_id", s.* from "clinic_patients" p join "glucose_period_stats" s on s."user_id" = p."user_id";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "clinic_period_stats_on_patient_key_update" on "clinic_patients";`);
    this.addSql(`drop trigger if exists "clinic_period_stats_on_patient_delete" on "clinic_patients";`);
    this.addSql(`drop trigger if exists "clinic_period_stats_on_patient_insert" on "clinic_patients";`);
    this.addSql(`drop trigger if exists "clinic_period_stats_on_stats_delete" on "glucose_period_stats";`);
    this.addSql(`drop trigger if exists "clinic_period_stats_on_stats_update" on "glucose_period_stats";`);
    this.addSql(`drop trigger if exists "clinic_period_stats_on_stats_insert" on "glucose_period_stats";`);
    this.addSql(`drop function if exists "clinic_period_stats_move_patient"();`);
    this.addSql(`drop function if exists "clinic_period_stats_follow_patients"();`);
    this.addSql(`drop function if exists "clinic_period_stats_follow_stats"();`);
    this.addSql(`drop table if exists "clinic_patient_period_stats" cascade;`);
  }
}
