import { Migration } from '@mikro-orm/migrations';

/**
 * The TIDE report (src/domains/clinics/tide) read every tagged patient's statistics of the period
 * and sorted them all to return 100 (and 50 without recent data): 1.5 s for a clinic of 100,000
 * patients, growing faster than the clinic. It now reads the clinic's copy of the statistics
 * (clinic_patient_period_stats) through these partial indexes and stops after each category's
 * first rows (src/domains/clinics/tide/tide.repository.ts):
 *
 * - One per category, holding the CGM rows that meet it (the thresholds are Tidepool's
 *   constants; the request only chooses which categories and in what order), keyed by clinic,
 *   period, previous and the statistic the category sorts by. The report reads each requested
 *   category's rows in that order, skipping patients an earlier category takes, those without
 *   the tags and those older than the cutoff, up to 100 (ties included), then sorts those few.
 *   A category per index rather than a generated column of the default category: the order is a
 *   request parameter, and the copy's columns stay exactly those of glucose_period_stats (its
 *   triggers copy rows as `clinic_id, row.*`). Each holds only the rows meeting its category.
 * - One of every CGM row by last data, for noData: the oldest data first.
 *
 * The predicates are the report's conditions as tide-indexes.ts writes them: the planner uses a
 * partial index only when the statement's conditions imply its predicate. Changing a threshold
 * changes an index (the schema drift test fails until a migration does it).
 *
 * EXPLAIN ANALYZE of the report (default categories, 14d, one tag every patient carries) on the
 * benchmark's seed (test/bench/scenarios/tide.ts) of a clinic of 100,000 patients beside one of
 * 10,000, on a shared 2-core machine: 567 ms before (every row read, two top-N sorts of all of
 * them), 22-25 ms after (each category's index read for about 100 rows, 716 rows in all; noData
 * reads 1,690 patients in name order to find 50 without data, and 103 rows by last data); the
 * clinic of 10,000 takes about as long.
 */
export class Migration20261127150000_tide_category_indexes extends Migration {
  override name = 'Migration20261127150000_tide_category_indexes';

  override up(): void | Promise<void> {
    for (const sql of INDEXES) this.addSql(sql);
  }

  override down(): void | Promise<void> {
    for (const name of NAMES) this.addSql(`drop index if exists "${name}";`);
  }
}

const INDEXES = [
    `create index "clinic_period_stats_tide_time_in_very_low_percent" on "clinic_patient_period_stats" ("clinic_id", "period", "previous", "time_in_very_low_percent") where kind = 'cgm' and time_in_very_low_percent > 0.01::float8;`,
    `create index "clinic_period_stats_tide_time_in_any_low_percent" on "clinic_patient_period_stats" ("clinic_id", "period", "previous", "time_in_any_low_percent") where kind = 'cgm' and time_in_any_low_percent > 0.04::float8;`,
    `create index "clinic_period_stats_tide_time_in_very_high_percent" on "clinic_patient_period_stats" ("clinic_id", "period", "previous", "time_in_very_high_percent") where kind = 'cgm' and time_in_very_high_percent > 0.05::float8;`,
    `create index "clinic_period_stats_tide_time_in_any_high_percent" on "clinic_patient_period_stats" ("clinic_id", "period", "previous", "time_in_any_high_percent") where kind = 'cgm' and time_in_any_high_percent > 0.25::float8;`,
    `create index "clinic_period_stats_tide_drop_in_time_in_target_percent" on "clinic_patient_period_stats" ("clinic_id", "period", "previous", "time_in_target_percent_delta") where kind = 'cgm' and time_in_target_percent_delta < -0.15::float8;`,
    `create index "clinic_period_stats_tide_time_cgm_use_percent" on "clinic_patient_period_stats" ("clinic_id", "period", "previous", "time_cgm_use_percent") where kind = 'cgm' and time_cgm_use_percent < 0.7::float8;`,
    `create index "clinic_period_stats_tide_meeting_targets" on "clinic_patient_period_stats" ("clinic_id", "period", "previous", "time_in_target_percent") where kind = 'cgm' and time_in_target_percent >= 0.7::float8 and time_cgm_use_percent >= 0.7::float8 and not coalesce(time_in_any_low_percent > 0.04::float8, false) and not coalesce(time_in_very_low_percent > 0.01::float8, false) and not coalesce(time_in_any_high_percent > 0.25::float8, false) and not coalesce(time_in_very_high_percent > 0.05::float8, false) and not coalesce(time_in_extreme_high_percent >= 0.01::float8, false);`,
    `create index "clinic_period_stats_tide_time_in_target_percent" on "clinic_patient_period_stats" ("clinic_id", "period", "previous", "time_in_target_percent") where kind = 'cgm' and time_in_target_percent < 0.7::float8;`,
    `create index "clinic_period_stats_tide_time_in_extreme_high_percent" on "clinic_patient_period_stats" ("clinic_id", "period", "previous", "time_in_extreme_high_percent") where kind = 'cgm' and time_in_extreme_high_percent >= 0.01::float8;`,
    `create index "clinic_period_stats_tide_last_data" on "clinic_patient_period_stats" ("clinic_id", "period", "previous", "last_data") where kind = 'cgm';`,
];

const NAMES = INDEXES.map((sql) => /create index "([^"]+)"/.exec(sql)![1]);
