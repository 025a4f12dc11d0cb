import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { PATIENT_COLUMNS, toPatient, type PatientRow } from './patient-list';
import { execute } from './patient-sql';

const patientKey = (clinicId: string, userId: string) => `${clinicId}:${userId}`;

/** Patient records by (clinic, user), one SELECT for every patient a request names. */
function patientLoader(scope: Scope): Loader<string, PatientRow | null> {
  return scope.loaders.get(
    'clinics.patients',
    () =>
      new Loader<string, PatientRow | null>(async (keys) => {
        const pairs = keys.map((key) => key.split(':'));
        const rows = await execute<Record<string, unknown>[]>(
          scope.em,
          `select ${PATIENT_COLUMNS}, null as sort_value from clinic_patients
            where (clinic_id, user_id) in (${pairs.map(() => '(?, ?)').join(', ')})`,
          pairs.flat(),
        );
        const byKey = new Map(rows.map(toPatient).map((row) => [patientKey(row.clinicId, row.userId), row]));
        return keys.map((key) => byKey.get(key) ?? null);
      }),
  );
}

export function loadPatient(scope: Scope, clinicId: string, userId: string): Promise<PatientRow | null> {
  return patientLoader(scope).load(patientKey(clinicId, userId));
}

/** Forgets a cached record after a change, so the request reads what it wrote. */
export function forgetPatient(scope: Scope, clinicId: string, userId: string): void {
  patientLoader(scope).clear(patientKey(clinicId, userId));
}
