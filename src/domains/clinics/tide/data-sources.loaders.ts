import { Loader } from '../../../kernel/loader';
import type { Scope } from '../../../kernel/scope';
import { patientKey } from '../clinic-ids';
import type { PatientDataSource } from './data-sources';
import { dataSourcesByKeys } from './tide.repository';

/** The data sources on clinics' records of patients (null: none reported), batched per request. */
export function dataSourcesLoader(scope: Scope): Loader<string, PatientDataSource[] | null> {
  return scope.loaders.get(
    'clinics.dataSources',
    () =>
      new Loader<string, PatientDataSource[] | null>(async (keys) => {
        const pairs = keys.map((key) => key.split(':') as [string, string]);
        const rows = await dataSourcesByKeys(scope.em, pairs);
        const found = new Map(rows.map((row) => [patientKey(row.clinic_id, row.user_id), row.data_sources]));
        return keys.map((key) => found.get(key) ?? null);
      }),
  );
}

/**
 * Records of patients read with their data sources (a page of the patient list, the TIDE report):
 * a later question for those sources is answered from them, without a statement of its own.
 */
export function primeDataSources(
  scope: Scope,
  records: readonly { clinicId: string; userId: string; dataSources: PatientDataSource[] | null }[],
): void {
  const loader = dataSourcesLoader(scope);
  for (const { clinicId, userId, dataSources } of records) loader.prime(patientKey(clinicId, userId), dataSources);
}
