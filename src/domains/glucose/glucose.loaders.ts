import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import type { PageArgs } from '../../kernel/paging';
import type { DatasetRecord } from './dataset.entity';
import { datasetCountsOf, datasetPagesOf, datasetsByIds } from './datasets.repository';
import { readingCountsOf, readingPagesOf, type ReadingFilter, type StoredReading } from './readings.repository';
import {
  clinicCopiesOf,
  previousPeriodsOf,
  summariesOf,
  type StoredClinicCopy,
  type StoredSummary,
  keptClinicCopies,
} from './summaries.repository';
import type { SummaryPeriods } from './summary/periods';
import type { SummaryKind } from './summary/buckets';

// The reading types are the repository's; the read API, its GraphQL types and the export name them from here.
export type { ReadingFilter, StoredReading } from './readings.repository';

/** Datasets by id, one query for the request. */
export function datasetLoader(scope: Scope): Loader<string, DatasetRecord | null> {
  return scope.loaders.get('glucose.datasets', () => {
    return new Loader<string, DatasetRecord | null>(async (ids) => {
      const rows = await datasetsByIds(scope.em, ids);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    });
  });
}

/** A page of the datasets of many users, newest first: one SELECT for the request. */
export function datasetPages(scope: Scope, args: PageArgs): Loader<string, DatasetRecord[]> {
  return scope.loaders.get(`glucose.datasetPages:${JSON.stringify(args)}`, () => {
    return new Loader<string, DatasetRecord[]>((userIds) => datasetPagesOf(scope.em, userIds, args));
  });
}

/** How many datasets each user has, in one SELECT for the request. */
export function datasetCounts(scope: Scope): Loader<string, number> {
  return scope.loaders.get('glucose.datasetCounts', () => {
    return new Loader<string, number>((userIds) => datasetCountsOf(scope.em, userIds));
  });
}

/**
 * A page of the active readings of many users in one time range, oldest first (then by id):
 * one SELECT for the request. `after` is the (time, id) of the previous page's last reading.
 */
export function readingPages(scope: Scope, filter: ReadingFilter, args: PageArgs): Loader<string, StoredReading[]> {
  return scope.loaders.get(`glucose.readingPages:${JSON.stringify([filter, args])}`, () => {
    return new Loader<string, StoredReading[]>((userIds) => readingPagesOf(scope.em, userIds, filter, args));
  });
}

/** How many active readings each user has in one time range, in one SELECT for the request. */
export function readingCounts(scope: Scope, filter: ReadingFilter): Loader<string, number> {
  return scope.loaders.get(`glucose.readingCounts:${JSON.stringify(filter)}`, () => {
    return new Loader<string, number>((userIds) => readingCountsOf(scope.em, userIds, filter));
  });
}

/**
 * The CGM and BGM summaries of many users, in one SELECT for the request: the current periods
 * only, half of a stored summary, since most views (a page of patients) show no other.
 */
export function summaryLoader(scope: Scope): Loader<string, StoredSummary[]> {
  return scope.loaders.get('glucose.summaries', () => {
    return new Loader<string, StoredSummary[]>((userIds) => summariesOf(scope.em, userIds));
  });
}

/** Each user's summaries with one side of their clinic copy (clinic-copy.ts), one query for the request. */
export function clinicCopyLoader(scope: Scope, previous: boolean): Loader<string, StoredClinicCopy[]> {
  return scope.loaders.get(`glucose.clinicCopies.${previous}`, () => {
    return new Loader<string, StoredClinicCopy[]>((userIds) => clinicCopiesOf(scope.em, userIds, previous));
  });
}

/**
 * Copies named in another domain's statement (clinicCopyJoins: the patient list's page reads their
 * revisions), as kept or read again (keptClinicCopies): a later question for them is answered
 * without a statement of its own.
 */
export async function primeClinicCopies(
  scope: Scope,
  previous: boolean,
  users: readonly { userId: string; revisions: string[] }[],
): Promise<void> {
  const loader = clinicCopyLoader(scope, previous);
  for (const { userId, copies } of await keptClinicCopies(scope.em, previous, users)) loader.prime(userId, copies);
}

/** Each user's previous periods by kind, read in one SELECT for the request when a view asks for them. */
export function previousPeriodsLoader(
  scope: Scope,
): Loader<string, Partial<Record<SummaryKind, SummaryPeriods['periods']>>> {
  return scope.loaders.get('glucose.previousPeriods', () => {
    return new Loader<string, Partial<Record<SummaryKind, SummaryPeriods['periods']>>>((userIds) =>
      previousPeriodsOf(scope.em, userIds),
    );
  });
}
