import { Migration } from '@mikro-orm/migrations';

/**
 * The TIDE report (src/domains/clinics/tide):
 * - `clinic_patients.data_sources`: the patient's cloud data sources (Dexcom, Abbott, ...) as
 *   Tidepool's data-source worker reports them through `PUT /v1/patients/{userId}/data_sources`;
 *   the report shows them, and its noData category looks for a Dexcom link that is not
 *   connected. NULL until reported, as Tidepool's record has no `dataSources` until then.
 * - No new index. The report is one statement (tide-sql.ts): the clinic's patients carrying the
 *   tags, each joined to its one glucose_period_stats row (cgm, period, current), read once; the
 *   categories and noData are then top-N sorts over those rows. Tag ids belong to one clinic, so
 *   the GIN index on `tags` (Migration20261124183000) finds exactly the clinic's tagged patients,
 *   and the primary key of glucose_period_stats (user_id, kind, period, previous) is the lookup
 *   key of the join. An index on a statistic would not help: each category tests a different
 *   one, the 100 are shared, and every tagged patient has to be read for noData anyway.
 *   EXPLAIN ANALYZE on the benchmark's clinic (test/bench/scenarios/tide.ts: 10,000 patients
 *   with 30 days of summaries, beside 40,000 patients of 40 other clinics with theirs; period
 *   14d; a shared, busy 2-core machine):
 *
 *     Sort (actual time=36.172..36.342 rows=150)
 *       CTE candidates
 *         ->  Gather (actual time=1.171..22.848 rows=10000)
 *               ->  Nested Loop Left Join (rows=5000 loops=2)
 *                     ->  Parallel Bitmap Heap Scan on clinic_patients p (actual time=0.358..1.413 rows=5000 loops=2)
 *                           ->  Bitmap Index Scan on clinic_patients_tags_gin (rows=10000)
 *                     ->  Index Scan using glucose_period_stats_pkey on glucose_period_stats s (actual time=0.003..0.003 rows=1 loops=10000)
 *       ->  Nested Loop (rows=150)
 *             ->  Append (rows=150)
 *                   ->  Limit -> Sort (top-N heapsort) -> CTE Scan on candidates (rows=4444, removed 5556)
 *                   ->  Limit -> Sort (top-N heapsort) -> CTE Scan on candidates (rows=5586, removed 4414)
 *             ->  Index Scan using clinic_patients_user_id_index on clinic_patients (loops=150)
 *     Execution Time: 36.576 ms
 *
 *   The same report as a query per category and one for noData (Tidepool's shape) read the
 *   tagged patients eight times; as two statements (categories, noData) it took 103 + 86 ms on
 *   the same data, the noData one choosing a sequential scan of all 400,000 statistics rows.
 */
export class Migration20261124210000_tide_indexes extends Migration {

  override name = 'Migration20261124210000_tide_indexes';

  override up(): void | Promise<void> {
    this.addSql(`alter table "clinic_patients" add column "data_sources" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "clinic_patients" drop column "data_sources";`);
  }
}
