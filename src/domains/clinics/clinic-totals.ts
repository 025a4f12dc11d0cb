import { NoticedCache, type Notices } from '../../infra/database/noticed-cache';
import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { countPatientsOf } from './patient-list.repository';

/** The channel on which the clinic_patients table's trigger names each clinic whose patients changed. */
export const CLINIC_PATIENTS_CHANGED_CHANNEL = 'islet_clinic_patients_changed';

/** How many patients a clinic has. */
interface ClinicTotal {
  patients: number;
}

/**
 * Each clinic's count of patients, kept between requests: the patient list answers it on every
 * page (`meta.totalCount`), and counting passes over every patient of the clinic, which for a
 * clinic of ten thousand cost PostgreSQL more than finding the page. The clinic_patients table's
 * trigger (migrations/Migration20261128170000_clinic_patient_count_notices.ts) names each clinic
 * whose patients changed; NoticedCache says how that reaches every instance. Counts are read from
 * the primary to be kept, and inside a transaction always from the table, which may hold the
 * transaction's own changes.
 */
export class ClinicTotals {
  private readonly kept: NoticedCache<ClinicTotal>;

  constructor(notices: Notices) {
    this.kept = new NoticedCache<ClinicTotal>(notices, { channel: CLINIC_PATIENTS_CHANGED_CHANNEL, max: 10_000 });
  }

  /** How many patients the clinic has, batched per request. */
  patients(scope: Scope, clinicId: string): Promise<number> {
    const loader = scope.loaders.get('clinics.totals', () => {
      return new Loader<string, number>(async (ids) => {
        const load = async (missing: readonly string[]) => {
          const counts = await countPatientsOf(scope.em, missing, {}, { stale: false });
          return new Map(missing.map((id, index) => [id, { patients: counts[index]! }]));
        };
        const read = scope.em.isInTransaction() ? await load(ids) : await this.kept.read(ids, load);
        return ids.map((id) => read.get(id)!.patients);
      });
    });
    return loader.load(clinicId);
  }

  /** Before this instance adds or removes patients of the clinic: read from the table until the change settles. */
  changing(clinicId: string): void {
    this.kept.changing(clinicId);
  }
}
