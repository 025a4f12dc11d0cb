import { Migration } from '@mikro-orm/migrations';

/**
 * The patient list filtered by summary statistics and sorted by one, 50 a page (issue 33): in a
 * clinic of 100,000 patients it read the clinic's whole range of the copy of the statistics
 * (clinic_patient_period_stats, rows of about 700 bytes, its current and previous periods side
 * by side), joined each match to its patient record, and sorted and counted them all.
 *
 * A list filtered by summaries alone now counts and pages in this index (src/domains/clinics/
 * patient-list-indexes.ts; the statement in patient-list.repository.ts, selectPages): its
 * entries hold the clinic, kind, period and previous, then time in range as the list sorts it
 * and the user id, and the statistics Tidepool's clinic filters read. The count is one pass over
 * the clinic's entries, never reading a row; the page sorted by time in range is the first
 * entries meeting the filter (about 130 for 51 rows in the benchmark), and a page sorted by
 * another statistic the index holds a top-N sort of its entries; the page's records are then
 * read by key. A filter on any other statistic reads rows of the copy, as before.
 *
 * One index, not one per statistic: every index of the copy is written again with each summary
 * update of each clinic of the patient. Unconditional, so BGM lists use it too.
 *
 * EXPLAIN ANALYZE of the benchmark's list (test/bench/scenarios/large-clinic.ts: two filters,
 * sorted by time in range, 47,879 of 100,000 patients matching) on its seed, a shared 2-core
 * machine under load: 1.2-2.2 s before (18,200 pages of the copy read, 47,879 records joined, a
 * top-N sort); 60-190 ms after (2,178 index pages for the count, 7 for the page, 51 records),
 * 34-52 ms for the statement as the service runs it, without EXPLAIN's timing.
 */
export class Migration20261127194500_patient_list_index extends Migration {
  override name = 'Migration20261127194500_patient_list_index';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "clinic_period_stats_patient_list" on "clinic_patient_period_stats" ("clinic_id", "kind", "period", "previous", coalesce("time_in_target_percent", '-Infinity'::float8), "user_id") include ("last_data", "time_cgm_use_percent", "time_in_very_low_percent", "time_in_any_low_percent", "time_in_target_percent", "time_in_any_high_percent", "time_in_very_high_percent", "time_in_extreme_high_percent", "glucose_management_indicator", "average_glucose_mmol");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "clinic_period_stats_patient_list";`);
  }
}
