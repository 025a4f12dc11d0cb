import { Loader } from '../../kernel/loader';
import { placeholders } from '../../kernel/sql';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import type { Grant, Permission } from './permission.model';

export interface GrantRow {
  sharer_id: string;
  grantee_id: string;
  permissions: Permission[];
}

function groupBy(rows: GrantRow[], key: 'sharer_id' | 'grantee_id', ids: readonly string[]): GrantRow[][] {
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
        const rows = await scope.em
          .getConnection()
          .execute<{ sharer_id: string; permissions: Permission[]; clinic_id: string | null }[]>(
            `select sharer_id, permissions, clinic_id from permission_grants where grantee_id = ? and sharer_id in (${placeholders(targets.length)})`,
            [callerId, ...targets],
          );
        const bySharer = new Map(
          rows.map((row) => [row.sharer_id, { permissions: row.permissions, clinicId: row.clinic_id }]),
        );
        return targets.map((target) => bySharer.get(target) ?? null);
      }),
  );
}

type Side = 'sharer_id' | 'grantee_id';
const otherSide = (column: Side): Side => (column === 'sharer_id' ? 'grantee_id' : 'sharer_id');

/**
 * A page of the grants of many accounts on one side (given, or received), ordered by the other
 * account's id, in one SELECT for all accounts asked in the request.
 */
export function grantPages(scope: Scope, column: Side, args: PageArgs): Loader<string, GrantRow[]> {
  return scope.loaders.get(`permissions.page:${column}:${args.first}:${JSON.stringify(args.after)}`, () => {
    const other = otherSide(column);
    return new Loader<string, GrantRow[]>(async (ids) => {
      const after = args.after === null ? '' : ` and ${other} > ?`;
      const rows = await scope.em.getConnection().execute<GrantRow[]>(
        `select sharer_id, grantee_id, permissions from (
           select sharer_id, grantee_id, permissions,
             row_number() over (partition by ${column} order by ${other}) as position
           from permission_grants where ${column} in (${placeholders(ids.length)})${after}
         ) ranked where position <= ? order by ${column}, ${other}`,
        [...ids, ...(args.after === null ? [] : [args.after[0]]), args.first + 1],
      );
      return groupBy(rows, column, ids);
    });
  });
}

/** How many grants each account gave (or received), in one SELECT for the request. */
export function grantCounts(scope: Scope, column: Side): Loader<string, number> {
  return scope.loaders.get(`permissions.count:${column}`, () => {
    return new Loader<string, number>(async (ids) => {
      const rows = await scope.em
        .getConnection()
        .execute<{ id: string; count: string }[]>(
          `select ${column} as id, count(*) as count from permission_grants where ${column} in (${placeholders(ids.length)}) group by ${column}`,
          [...ids],
        );
      const counts = new Map(rows.map((row) => [row.id, Number(row.count)]));
      return ids.map((id) => counts.get(id) ?? 0);
    });
  });
}
