import { NoticedCache, type Notices } from '../../infra/database/noticed-cache';
import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { filtersSummaries } from './patient-filters';
import type { PatientFilter } from './patient-list';
import { countPatientsOf } from './patient-list.repository';

/** The channel on which the clinic_patients table's trigger names each clinic whose patients changed. */
export const CLINIC_PATIENTS_CHANGED_CHANNEL = 'islet_clinic_patients_changed';
/** The channel on which the clinic copy of the statistics names each clinic whose copy changed. */
export const CLINIC_STATISTICS_CHANGED_CHANNEL = 'islet_clinic_statistics_changed';

/** How many patients of a clinic a filter holds. */
interface ClinicCount {
  patients: number;
}

/** A kept count's key: the clinic, a space, the summary filter as JSON (clinic ids hold no space). */
const clinicOf = (key: string) => key.slice(0, key.indexOf(' '));

/**
 * Whether the filter filters on glucose summaries and nothing else: its count then depends on the
 * clinic's copy of the statistics alone, which holds rows only of the clinic's patients (see
 * copySql in patient-filters.ts), so the copy's notices tell when it changes.
 */
export const filtersStatisticsOnly = (filter: PatientFilter): boolean =>
  filtersSummaries(filter.summary) && !filter.search && !filter.tags?.length && !filter.lastReviewed;

/**
 * Counts of a clinic's patients, kept between requests: the patient list answers them on every
 * page (`meta.totalCount`, `meta.count`), and counting passes over every patient of the clinic,
 * which for a clinic of ten thousand costs PostgreSQL more than finding the page.
 *
 * - All of the clinic's patients: forgotten when the clinic_patients table's trigger
 *   (migrations/Migration20261128170000_clinic_patient_count_notices.ts) names the clinic.
 * - Those a filter on the glucose summaries alone holds (filtersStatisticsOnly), per filter:
 *   forgotten, every filter of the clinic at once, when the trigger on the clinic's copy of the
 *   statistics (migrations/Migration20261128190000_clinic_statistics_notices.ts) names it, which
 *   it does for a summary written for any of its patients. Paging, sorting again and other
 *   clinicians of the clinic asking the same filter count nothing until then.
 *
 * NoticedCache says how notices reach every instance. Counts are read from the primary to be
 * kept, and inside a transaction always from the tables, which may hold the transaction's own changes.
 */
export class ClinicTotals {
  private readonly totals: NoticedCache<ClinicCount>;
  private readonly filtered: NoticedCache<ClinicCount>;

  constructor(notices: Notices) {
    const kept = (channel: string) =>
      new NoticedCache<ClinicCount>(notices, { channel, max: 10_000, groupOf: clinicOf });
    this.totals = kept(CLINIC_PATIENTS_CHANGED_CHANNEL);
    this.filtered = kept(CLINIC_STATISTICS_CHANGED_CHANNEL);
  }

  /** How many patients the clinic has, batched per request. */
  patients(scope: Scope, clinicId: string): Promise<number> {
    return this.count(scope, this.totals, clinicId, {});
  }

  /** How many of the clinic's patients a filter on their glucose summaries alone holds (filtersStatisticsOnly). */
  matching(scope: Scope, clinicId: string, filter: PatientFilter): Promise<number> {
    if (!filtersStatisticsOnly(filter)) throw new Error('only a filter on glucose summaries alone is counted here');
    return this.count(scope, this.filtered, clinicId, { summary: filter.summary });
  }

  /** Before this instance adds or removes patients of the clinic: read from the tables until the change settles. */
  changing(clinicId: string): void {
    this.totals.changing(clinicId);
    this.filtered.changing(clinicId);
  }

  /** One count, batched per request with the other clinics counted under the same filter. */
  private count(scope: Scope, kept: NoticedCache<ClinicCount>, clinicId: string, filter: PatientFilter) {
    const filterKey = JSON.stringify(filter.summary ?? null);
    const loader = scope.loaders.get(`clinics.keptCounts:${filterKey}`, () => {
      return new Loader<string, number>(async (ids) => {
        const load = async (keys: readonly string[]) => {
          const counts = await countPatientsOf(scope.em, keys.map(clinicOf), filter, { stale: false });
          return new Map(keys.map((key, index) => [key, { patients: counts[index]! }]));
        };
        const keys = ids.map((id) => `${id} ${filterKey}`);
        const read = scope.em.isInTransaction() ? await load(keys) : await kept.read(keys, load);
        return keys.map((key) => read.get(key)!.patients);
      });
    });
    return loader.load(clinicId);
  }
}
