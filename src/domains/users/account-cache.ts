import { NoticedCache, type Notices } from '../../infra/database/noticed-cache';
import type { UserRecord } from './user.entity';

/** The channel on which the users table's trigger names each account whose row changed. */
export const ACCOUNT_CHANGED_CHANNEL = 'islet_account_changed';

export type AccountCache = NoticedCache<UserRecord>;

/**
 * Accounts kept in memory between requests: every `me` and `GET /auth/user` reads its caller's
 * account, and that statement was most of those requests' cost. The users table's trigger
 * (migrations/Migration20261128140000_account_change_notices.ts) names each changed account;
 * NoticedCache says how a change reaches every instance. Kept accounts are frozen: one snapshot
 * is shared by every request that reads it.
 */
export function accountCache(notices: Notices): AccountCache {
  return new NoticedCache<UserRecord>(notices, { channel: ACCOUNT_CHANGED_CHANNEL, max: 20_000, keep: frozen });
}

function frozen(account: UserRecord): UserRecord {
  Object.freeze(account.emails);
  Object.freeze(account.roles);
  return Object.freeze(account);
}
