import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { sqlReadsOf } from '../../kernel/units-of-work';
import type { Grant } from './permission.model';
import { callerGrantsOn, grantCountsOf, grantPagesOf, type GrantRow, type Side } from './permissions.repository';

function groupBy(rows: GrantRow[], key: Side, ids: readonly string[]): GrantRow[][] {
  const groups = new Map(ids.map((id) => [id, [] as GrantRow[]]));
  for (const row of rows) groups.get(row[key])?.push(row);
  return ids.map((id) => groups.get(id)!);
}

/**
 * The caller's direct grant on each target, with the clinic whose access made it (if one did),
 * in one query for all targets asked in the request.
 */
export function callerGrants(scope: Scope, callerId: string): Loader<string, Grant | null> {
  return scope.loaders.get(
    `permissions.caller:${callerId}`,
    () =>
      new Loader(async (targets) => {
        const bySharer = await callerGrantsOn(sqlReadsOf(scope), callerId, targets);
        return targets.map((target) => bySharer.get(target) ?? null);
      }),
  );
}

/**
 * A page of the grants of many accounts on one side (given, or received), ordered by the other
 * account's id, in one SELECT for all accounts asked in the request.
 */
export function grantPages(scope: Scope, column: Side, args: PageArgs): Loader<string, GrantRow[]> {
  return scope.loaders.get(`permissions.page:${column}:${args.first}:${JSON.stringify(args.after)}`, () => {
    return new Loader<string, GrantRow[]>(async (ids) => {
      const rows = await grantPagesOf(sqlReadsOf(scope), column, ids, args);
      primeCallerGrants(scope, column, rows);
      return groupBy(rows, column, ids);
    });
  });
}

/**
 * The grants the caller received, read for a page of its shares, are the ones its access checks
 * on those sharers ask for (reading a sharer's account): known now, they cost no second SELECT.
 */
function primeCallerGrants(scope: Scope, column: Side, rows: readonly GrantRow[]): void {
  const callerId = scope.principal.userId;
  if (column !== 'grantee_id' || callerId === null) return;
  for (const row of rows) {
    if (row.grantee_id !== callerId) continue;
    callerGrants(scope, callerId).prime(row.sharer_id, { permissions: row.permissions, clinicId: row.clinic_id });
  }
}

/** How many grants each account gave (or received), in one SELECT for the request. */
export function grantCounts(scope: Scope, column: Side): Loader<string, number> {
  return scope.loaders.get(`permissions.count:${column}`, () => {
    return new Loader<string, number>(async (ids) => {
      const counts = await grantCountsOf(sqlReadsOf(scope), column, ids);
      return ids.map((id) => counts.get(id) ?? 0);
    });
  });
}
