import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { clinicLogCounts, clinicLogPages } from './access-log.repository';
import type { AccessLogFilter, StoredEntryRow } from './access-log.sql';
import { userLogCounts, userLogPages } from './access-log.user-log.repository';

/**
 * The logs of every user and clinic a request reads under one filter and page, batched: a
 * hundred users' logs cost the statements of one (the clinic's: one; a user's: one per span of
 * hours, access-log.user-log.repository.ts), and a user or clinic named twice is read once.
 */

/** Up to `args.first + 1` entries of each user's log, newest first. */
export function userLogPageLoader(
  scope: Scope,
  filter: AccessLogFilter,
  args: PageArgs,
): Loader<string, StoredEntryRow[]> {
  return scope.loaders.get(
    `accessLog.userPages:${JSON.stringify([filter, args])}`,
    () => new Loader<string, StoredEntryRow[]>((userIds) => userLogPages(scope.em, userIds, filter, args)),
  );
}

/** How many entries each user's log holds under `filter`. */
export function userLogCountLoader(scope: Scope, filter: AccessLogFilter): Loader<string, number> {
  return scope.loaders.get(
    `accessLog.userCounts:${JSON.stringify(filter)}`,
    () => new Loader<string, number>((userIds) => userLogCounts(scope.em, userIds, filter)),
  );
}

/** Groups rows by `key`, in the order of `owners`. */
function byOwner<T>(owners: readonly string[], rows: T[], key: (row: T) => string): T[][] {
  const groups = new Map(owners.map((owner) => [owner, [] as T[]]));
  for (const row of rows) groups.get(key(row))?.push(row);
  return owners.map((owner) => groups.get(owner)!);
}

/** Up to `args.first + 1` entries of each clinic's log, newest first, in one statement. */
export function clinicLogPageLoader(
  scope: Scope,
  filter: AccessLogFilter,
  args: PageArgs,
): Loader<string, StoredEntryRow[]> {
  return scope.loaders.get(
    `accessLog.clinicPages:${JSON.stringify([filter, args])}`,
    () =>
      new Loader<string, StoredEntryRow[]>(async (clinicIds) => {
        const rows = await clinicLogPages(scope.em, clinicIds, filter, args);
        return byOwner(clinicIds, rows, (row) => row.clinic_id!);
      }),
  );
}

/** How many entries each clinic's log holds under `filter`, in one statement. */
export function clinicLogCountLoader(scope: Scope, filter: AccessLogFilter): Loader<string, number> {
  return scope.loaders.get(
    `accessLog.clinicCounts:${JSON.stringify(filter)}`,
    () =>
      new Loader<string, number>(async (clinicIds) => {
        const counts = await clinicLogCounts(scope.em, clinicIds, filter);
        return clinicIds.map((clinicId) => counts.get(clinicId) ?? 0);
      }),
  );
}
