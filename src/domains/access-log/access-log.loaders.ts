import { executeBound } from '../../infra/database/orm';
import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { andAll, conditions, RECORD_COLUMNS, type AccessLogFilter, type StoredEntryRow } from './access-log.sql';
import { userLogCounts, userLogPages } from './access-log.user-log';
import { ENTRY_SLOTS } from './access-log.writer';

/**
 * The logs of every user and clinic a request reads under one filter and page, batched: a
 * hundred users' logs cost the statements of one (the clinic's: one; a user's: one per span of
 * hours, access-log.user-log.ts), and a user or clinic named twice is read once.
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

/**
 * Each clinic's (`$1`) log: the backward range of the records' clinic index, each record's
 * accounts in turn, the filter's conditions on the record (`r`) from `$2` on; `after` follows them.
 */
const clinicPages = (filters: readonly string[], after: string | null, limit: number) =>
  `select e.* from unnest($1::text[]) as c(clinic_id) cross join lateral (
     select r.id * ${ENTRY_SLOTS} + s.position - 1 as id, s.subject_id, ${RECORD_COLUMNS}, s.object_ids::text[] as object_ids
       from access_log_records r, unnest(r.subject_ids, r.object_ids) with ordinality as s(subject_id, object_ids, position)
      where r.clinic_id = c.clinic_id${andAll(filters)}
        ${after ? `and r.id <= ${after} / ${ENTRY_SLOTS} and r.id * ${ENTRY_SLOTS} + s.position - 1 < ${after}` : ''}
      order by r.id desc, s.position desc limit ${limit}) e
    order by e.clinic_id, e.id desc`;

const clinicCounts = (filters: readonly string[]) =>
  `select r.clinic_id, coalesce(sum(cardinality(r.subject_ids)), 0)::int as n from access_log_records r
    where r.clinic_id = any($1::text[])${andAll(filters)} group by r.clinic_id`;

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
        const { sql, params } = conditions(filter, 2);
        const after = args.after ? `$${params.length + 2}::bigint` : null;
        const { rows } = await executeBound(scope.em, clinicPages(sql, after, args.first + 1), [
          clinicIds,
          ...params,
          ...(args.after ?? []),
        ]);
        return byOwner(clinicIds, rows as unknown as StoredEntryRow[], (row) => row.clinic_id!);
      }),
  );
}

/** How many entries each clinic's log holds under `filter`, in one statement. */
export function clinicLogCountLoader(scope: Scope, filter: AccessLogFilter): Loader<string, number> {
  return scope.loaders.get(
    `accessLog.clinicCounts:${JSON.stringify(filter)}`,
    () =>
      new Loader<string, number>(async (clinicIds) => {
        const { sql, params } = conditions(filter, 2);
        const { rows } = await executeBound(scope.em, clinicCounts(sql), [clinicIds, ...params]);
        const counts = new Map(rows.map((row) => [row.clinic_id as string, row.n as number]));
        return clinicIds.map((clinicId) => counts.get(clinicId) ?? 0);
      }),
  );
}
