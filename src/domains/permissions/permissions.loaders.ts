import { Loader } from '../../kernel/loader';
import { placeholders } from '../../kernel/sql';
import type { Scope } from '../../kernel/scope';
import type { Permission } from './access-policy';

export interface GrantRow {
  sharer_id: string;
  grantee_id: string;
  permissions: Permission[];
}

async function grantRows(
  scope: Scope,
  column: 'sharer_id' | 'grantee_id',
  ids: readonly string[],
  extra = '',
  params: unknown[] = [],
) {
  return scope.em
    .getConnection()
    .execute<GrantRow[]>(
      `select sharer_id, grantee_id, permissions from permission_grants where ${column} in (${placeholders(ids.length)})${extra} order by sharer_id, grantee_id`,
      [...ids, ...params],
    );
}

function groupBy(rows: GrantRow[], key: 'sharer_id' | 'grantee_id', ids: readonly string[]): GrantRow[][] {
  const groups = new Map(ids.map((id) => [id, [] as GrantRow[]]));
  for (const row of rows) groups.get(row[key])?.push(row);
  return ids.map((id) => groups.get(id)!);
}

/** Grants each sharer gave (its "group members"), batched per request. */
export function grantsBySharer(scope: Scope): Loader<string, GrantRow[]> {
  return scope.loaders.get(
    'permissions.bySharer',
    () => new Loader(async (ids) => groupBy(await grantRows(scope, 'sharer_id', ids), 'sharer_id', ids)),
  );
}

/** Grants each user received (the groups it can access), batched per request. */
export function grantsByGrantee(scope: Scope): Loader<string, GrantRow[]> {
  return scope.loaders.get(
    'permissions.byGrantee',
    () => new Loader(async (ids) => groupBy(await grantRows(scope, 'grantee_id', ids), 'grantee_id', ids)),
  );
}

/** What the caller holds on each target, in one query for all targets asked in the request. */
export function callerGrants(scope: Scope, callerId: string): Loader<string, Permission[] | null> {
  return scope.loaders.get(
    `permissions.caller:${callerId}`,
    () =>
      new Loader(async (targets) => {
        const rows = await grantRows(scope, 'sharer_id', targets, ' and grantee_id = ?', [callerId]);
        const bySharer = new Map(rows.map((row) => [row.sharer_id, row.permissions]));
        return targets.map((target) => bySharer.get(target) ?? null);
      }),
  );
}
