import { Migration } from '@mikro-orm/migrations';

/**
 * The periods of every glucose summary as clinics see them (exportPeriod, tidepool-semantics
 * B.8), one row per (user, kind, period, previous) and one nullable double column per statistic
 * (snake case of its name; NULL where exportPeriod leaves it out, so no filter matches it): what
 * the patient list filters and sorts on, and what the TIDE report reads, with plain comparisons
 * instead of JSON paths into glucose_summaries.periods. updateSummary rewrites a user's rows of
 * one kind in the summary's transaction.
 * - Primary key (user_id, kind, period, previous): the writer replaces a user's rows of one kind
 *   (one index range per partition), and a list or report reaches exactly one row per patient
 *   and period by it.
 * - Range-partitioned by (kind, period), previous spanning each partition (8 partitions): every
 *   list and report reads one kind and one period, and PostgreSQL prunes to that partition, so
 *   the pages a query touches are an eighth of the table (a 30-day summary of 40,000 users is
 *   about 220 MB unpartitioned: more than shared_buffers here; one partition is about 28 MB).
 *   Boolean range keys are not pruned on, so `previous` gets no partition of its own.
 * - No index per statistic: a filter or sort applies to the patients of one clinic, which the
 *   list reaches through clinic_patients' primary key (clinic_id, user_id) and then probes each
 *   patient's row by this primary key (patient-filters.ts summarySql: a lateral subquery, so the
 *   cost follows the clinic's size, never the number of users on the platform). An index on one
 *   statistic over every user of every clinic would not narrow a clinic's list, and 75
 *   statistics would make each summary update (8 rows) far more expensive.
 *
 * Measured with EXPLAIN ANALYZE on the clinic-patient-filters benchmark (10,000 patients of one
 * clinic among 40,000 users with 30-day summaries; shared 2-core machine): two filters
 * (`time_in_very_low_percent > 0.01`, `time_cgm_use_percent > 0.7`, 4,790 matches), sorted by
 * `time_in_target_percent`, first page of 51 with the match count in the same pass:
 *   Limit -> Sort (top-N heapsort) -> WindowAgg -> Nested Loop
 *     -> Seq Scan on clinic_patients p (Filter: clinic_id = ...; 10,000 rows)
 *     -> Subquery Scan on s (Filter: the two bounds) (loops=10000)
 *        -> Index Scan using glucose_period_stats_cgm_14d_pkey on glucose_period_stats_cgm_14d x
 *           (Index Cond: user_id = p.user_id, kind = 'cgm', period = '14d', previous = false)
 *   Execution Time: 45-52 ms cold (38,000 buffer hits, 4 per patient), 35 ms warm. Joined
 *   without the lateral probe the planner scanned the whole partition and probed
 *   clinic_patients for 19,204 users of every clinic instead (111 ms); unpartitioned, 10,000
 *   probes into the 220 MB table read from disk (136 ms).
 */
export class Migration20261124200000_glucose_period_stats extends Migration {

  override name = 'Migration20261124200000_glucose_period_stats';

  override up(): void | Promise<void> {
    this.addSql(`create table "glucose_period_stats" ("user_id" varchar(36) not null, "kind" varchar(3) not null, "period" varchar(3) not null, "previous" boolean not null, "last_data" timestamptz null, "last_upload_date" timestamptz null, "time_in_very_low_percent" double precision null, "time_in_very_low_minutes" double precision null, "time_in_very_low_records" double precision null, "time_in_low_percent" double precision null, "time_in_low_minutes" double precision null, "time_in_low_records" double precision null, "time_in_target_percent" double precision null, "time_in_target_minutes" double precision null, "time_in_target_records" double precision null, "time_in_high_percent" double precision null, "time_in_high_minutes" double precision null, "time_in_high_records" double precision null, "time_in_very_high_percent" double precision null, "time_in_very_high_minutes" double precision null, "time_in_very_high_records" double precision null, "time_in_extreme_high_percent" double precision null, "time_in_extreme_high_minutes" double precision null, "time_in_extreme_high_records" double precision null, "time_in_any_low_percent" double precision null, "time_in_any_low_minutes" double precision null, "time_in_any_low_records" double precision null, "time_in_any_high_percent" double precision null, "time_in_any_high_minutes" double precision null, "time_in_any_high_records" double precision null, "time_cgm_use_percent" double precision null, "time_cgm_use_minutes" double precision null, "time_cgm_use_records" double precision null, "average_glucose_mmol" double precision null, "glucose_management_indicator" double precision null, "standard_deviation" double precision null, "coefficient_of_variation" double precision null, "average_daily_records" double precision null, "total_records" double precision null, "hours_with_data" double precision null, "days_with_data" double precision null, "min" double precision null, "max" double precision null, "time_in_very_low_percent_delta" double precision null, "time_in_very_low_minutes_delta" double precision null, "time_in_very_low_records_delta" double precision null, "time_in_low_percent_delta" double precision null, "time_in_low_minutes_delta" double precision null, "time_in_low_records_delta" double precision null, "time_in_target_percent_delta" double precision null, "time_in_target_minutes_delta" double precision null, "time_in_target_records_delta" double precision null, "time_in_high_percent_delta" double precision null, "time_in_high_minutes_delta" double precision null, "time_in_high_records_delta" double precision null, "time_in_very_high_percent_delta" double precision null, "time_in_very_high_minutes_delta" double precision null, "time_in_very_high_records_delta" double precision null, "time_in_extreme_high_percent_delta" double precision null, "time_in_extreme_high_minutes_delta" double precision null, "time_in_extreme_high_records_delta" double precision null, "time_in_any_low_percent_delta" double precision null, "time_in_any_low_minutes_delta" double precision null, "time_in_any_low_records_delta" double precision null, "time_in_any_high_percent_delta" double precision null, "time_in_any_high_minutes_delta" double precision null, "time_in_any_high_records_delta" double precision null, "time_cgm_use_percent_delta" double precision null, "time_cgm_use_minutes_delta" double precision null, "time_cgm_use_records_delta" double precision null, "average_glucose_mmol_delta" double precision null, "glucose_management_indicator_delta" double precision null, "standard_deviation_delta" double precision null, "coefficient_of_variation_delta" double precision null, "average_daily_records_delta" double precision null, "total_records_delta" double precision null, "hours_with_data_delta" double precision null, "days_with_data_delta" double precision null, "min_delta" double precision null, "max_delta" double precision null, "glycemia_risk_index" double precision null, "glycemia_risk_zone" text null, primary key ("user_id", "kind", "period", "previous")) partition by range ("kind", "period", "previous");`);
    for (const kind of ['cgm', 'bgm'])
      for (const period of ['1d', '7d', '14d', '30d'])
        this.addSql(`create table "glucose_period_stats_${kind}_${period}" partition of "glucose_period_stats" for values from ('${kind}', '${period}', minvalue) to ('${kind}', '${period}', maxvalue);`);
    // Summaries computed before this table existed have no rows in it: marked outdated, the
    // summary updaters rebuild each one (from its readings) and write its rows.
    this.addSql(`update "glucose_summaries" set "outdated_since" = coalesce("outdated_since", now());`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "glucose_period_stats" cascade;`);
  }

}
