import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import type { AccountCache } from './account-cache';
import type { UserRecord } from './user.entity';
import { usersByIds } from './users.repository';

/** Accounts by id, batched per request: any number of lookups cost one SELECT. */
export function userLoader(scope: Scope): Loader<string, UserRecord | null> {
  return scope.loaders.get('users.byId', () => {
    return new Loader<string, UserRecord | null>(async (ids) => {
      const byId = await usersByIds(scope.em, ids);
      return ids.map((id) => byId.get(id) ?? null);
    });
  });
}

/**
 * Accounts by id through the instance's AccountCache, batched per request: for what shows an
 * account (the caller's own, a sharer's), not for what decides on one. A hit needs no unit of
 * work, even inside a transaction: an account a transaction changes was marked changing before
 * (UsersService.willChange), so it is read from the table until the change has settled.
 */
export function keptUserLoader(scope: Scope, cache: AccountCache): Loader<string, UserRecord | null> {
  return scope.loaders.get('users.kept', () => {
    return new Loader<string, UserRecord | null>(async (ids) => {
      const load = (missing: readonly string[]) => usersByIds(scope.em, missing);
      const byId = await cache.read(ids, load);
      return ids.map((id) => byId.get(id) ?? null);
    });
  });
}

/**
 * Accounts the caller may read, by id, batched per request: `read` answers a whole batch (null
 * where the caller may not read one or none exists), so a page of shares costs one access check
 * and one SELECT rather than one of each per share.
 */
export function readableUserLoader(
  scope: Scope,
  read: (ids: readonly string[]) => Promise<(UserRecord | null)[]>,
): Loader<string, UserRecord | null> {
  return scope.loaders.get('users.readable', () => new Loader<string, UserRecord | null>(read));
}
