import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { primeClinicCopies } from '../glucose/glucose.loaders';
import { clinicCopyRevisionsOf } from '../glucose/summaries.repository';
import { patientKey } from './clinic-ids';
import { filtersSummaries } from './patient-filters';
import type { PageCompanions, PatientFilter, PatientOrder } from './patient-list';
import { countPatientsOf, selectPages } from './patient-list.repository';
import type { PatientDataSource } from './tide/data-sources';
import { primeDataSources } from './tide/data-sources.loaders';
import { patientsByKeys, toPatient, type PatientRow } from './patients.repository';

/** Patient records by (clinic, user), one SELECT for every patient a request names. */
function patientLoader(scope: Scope): Loader<string, PatientRow | null> {
  return scope.loaders.get(
    'clinics.patients',
    () =>
      new Loader<string, PatientRow | null>(async (keys) => {
        const pairs = keys.map((key) => key.split(':') as [string, string]);
        const rows = await patientsByKeys(scope.em, pairs);
        const byKey = new Map(rows.map((row) => [patientKey(row.clinicId, row.userId), row]));
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

/** A page of the clinic's patients in `order`, one row more than asked, past `offset` of them. */
export function patientPage(
  scope: Scope,
  clinicId: string,
  filter: PatientFilter,
  order: PatientOrder,
  args: PageArgs,
  companions: PageCompanions = {},
): Promise<PatientRow[]> {
  return patientPages(scope, filter, order, args, companions).load(clinicId);
}

/**
 * The pages of every clinic a request lists under one filter, order and page: one SELECT for
 * all of them (see selectPages), which primes what it read beside the records.
 */
function patientPages(
  scope: Scope,
  filter: PatientFilter,
  order: PatientOrder,
  args: PageArgs,
  companions: PageCompanions,
): Loader<string, PatientRow[]> {
  return scope.loaders.get(`clinics.patientPages:${JSON.stringify([filter, order, args, companions])}`, () => {
    return new Loader<string, PatientRow[]>(async (clinicIds) => {
      // A summary filter reads a statistic of every patient of the clinic: the first page counts the
      // matches in the same pass (a window over all of them), instead of a second pass for the count.
      // Unless the caller reads the counts apart (PageCompanions.counts).
      const counted = !companions.counts && !args.after && filtersSummaries(filter.summary);
      const rows = await selectPages(scope.em, clinicIds, filter, order, args, counted, companions);
      const records = rows.filter((row) => row.user_id !== null);
      const pages = new Map<string, PatientRow[]>(clinicIds.map((clinicId) => [clinicId, []]));
      for (const row of records) pages.get(row.clinic_id as string)?.push(toPatient(row));
      primeDataSources(scope, records.map(dataSourcesOf));
      if (counted) primeCounts(scope, clinicIds, rows, filter, args);
      if (companions.clinicCopies)
        await primeClinicCopies(
          scope,
          companions.clinicCopies.previous,
          records.map((row) => ({ userId: row.user_id as string, revisions: clinicCopyRevisionsOf(row) })),
        );
      return clinicIds.map((clinicId) => pages.get(clinicId)!);
    });
  });
}

/** The counts a page's rows carry (`full_count` of each clinic's first row), for countPatients under `filter`. */
function primeCounts(
  scope: Scope,
  clinicIds: readonly string[],
  rows: Record<string, unknown>[],
  filter: PatientFilter,
  args: PageArgs,
): void {
  const counts = patientCounts(scope);
  for (const clinicId of clinicIds) {
    const key = countKey(clinicId, filter);
    const value = rows.find((row) => row.listed_clinic_id === clinicId)?.full_count;
    if (counts.has(key)) continue;
    if (value !== null && value !== undefined) counts.set(key, Promise.resolve(Number(value)));
    // Counted by a window over the page's own rows: an empty first page has no match at all, while
    // an empty page past some skipped rows tells nothing, and its count is read on its own.
    else if (!args.offset) counts.set(key, Promise.resolve(0));
  }
}

const dataSourcesOf = (row: Record<string, unknown>) => ({
  clinicId: row.clinic_id as string,
  userId: row.user_id as string,
  dataSources: (row.data_sources as PatientDataSource[] | null) ?? null,
});

const patientCounts = (scope: Scope) =>
  scope.loaders.get('clinics.patientCounts', () => new Map<string, Promise<number>>());

/** Whether `filter` leaves out any of the clinic's patients. */
export const filtersPatients = (filter: PatientFilter): boolean => countKey('', filter) !== countKey('', {});

const countKey = (clinicId: string, filter: PatientFilter) =>
  JSON.stringify([
    clinicId,
    filter.search || null,
    filter.tags?.length ? filter.tags : null,
    filter.lastReviewed ?? null,
    filter.summary ?? null,
  ]);

/** How many patients each clinic holds under one filter: one SELECT for the clinics a request counts. */
function patientCountLoader(scope: Scope, filter: PatientFilter): Loader<string, number> {
  return scope.loaders.get(`clinics.patientCountBatches:${countKey('', filter)}`, () => {
    return new Loader<string, number>((clinicIds) => countPatientsOf(scope.em, clinicIds, filter));
  });
}

/**
 * How many of the clinic's patients the filter holds, counted once per request: the REST list
 * asks both the filtered count and the clinic's, which are the same count when nothing filters.
 * A count the page's statement carried is answered as is; otherwise `read` counts (a count kept
 * between requests, say), or a statement of its own.
 */
export function countPatients(
  scope: Scope,
  clinicId: string,
  filter: PatientFilter = {},
  read = () => patientCountLoader(scope, filter).load(clinicId),
): Promise<number> {
  const counts = patientCounts(scope);
  const key = countKey(clinicId, filter);
  let count = counts.get(key);
  if (!count) {
    count = read();
    counts.set(key, count);
  }
  return count;
}
