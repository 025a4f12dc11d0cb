import { LRUCache } from 'lru-cache';
import type { UserRecord } from './user.entity';

/** The channel on which the users table's trigger names each account whose row changed. */
export const ACCOUNT_CHANGED_CHANNEL = 'islet_account_changed';

/** Longer than any transaction that changes an account takes to commit and announce it. */
export const CHANGE_SETTLES_MS = 10_000;

const MAX_ACCOUNTS = 20_000;

/** What the cache needs of the database's notifications (src/infra/database/events.ts). */
export interface AccountNotices {
  readonly listening: boolean;
  on(channel: string, listener: (payload: string) => void): void;
  onConnect(hook: () => Promise<void>): void;
}

type Load = (ids: readonly string[]) => Promise<Map<string, UserRecord>>;

/**
 * Accounts kept in memory between requests: every `me` and `GET /auth/user` reads its caller's
 * account, and that statement was most of those requests' cost. Kept current by the users
 * table's trigger (migrations/Migration20261128140000_account_change_notices.ts), whose notice
 * reaches every instance when a change commits:
 * - an account another instance changed is forgotten when the notice arrives (milliseconds);
 * - one this instance is changing (`changing`) is read from the database alone until
 *   CHANGE_SETTLES_MS later, so its writer reads its own change at once;
 * - a read that began before a notice keeps nothing it read: it may predate the change;
 * - nothing is served or kept while notices could be missed (the listener reconnecting), and
 *   everything is forgotten when the listener is back.
 * Kept accounts are frozen: one snapshot is shared by every request that reads it.
 */
export class AccountCache {
  private readonly accounts = new LRUCache<string, UserRecord>({ max: MAX_ACCOUNTS });
  /** Accounts this instance is changing, with when it may keep them again. */
  private readonly unsettled = new Map<string, number>();
  /** Counts notices: a read that saw another count when it began keeps nothing. */
  private generation = 0;

  constructor(
    private readonly notices: AccountNotices,
    private readonly now: () => number = Date.now,
  ) {
    notices.on(ACCOUNT_CHANGED_CHANNEL, (id) => this.forget(id));
    notices.onConnect(async () => {
      this.accounts.clear();
      this.generation += 1;
    });
  }

  /** Accounts by id: those kept, and the rest through `load`, kept when nothing changed meanwhile. */
  async read(ids: readonly string[], load: Load): Promise<Map<string, UserRecord>> {
    if (!this.notices.listening) return load(ids);
    const found = new Map<string, UserRecord>();
    const missing: string[] = [];
    for (const id of ids) {
      const kept = this.accounts.get(id);
      if (kept) found.set(id, kept);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    const generation = this.generation;
    const loaded = await load(missing);
    const keep = generation === this.generation && this.notices.listening;
    for (const [id, account] of loaded) {
      if (keep && !this.isUnsettled(id)) this.accounts.set(id, frozen(account));
      found.set(id, account);
    }
    return found;
  }

  /** Before this instance writes an account: forgotten, and read from the database until the change settles. */
  changing(id: string): void {
    if (this.unsettled.size >= MAX_ACCOUNTS) this.dropSettled();
    this.unsettled.set(id, this.now() + CHANGE_SETTLES_MS);
    this.forget(id);
  }

  private forget(id: string): void {
    this.accounts.delete(id);
    this.generation += 1;
  }

  private dropSettled(): void {
    const now = this.now();
    for (const [id, until] of this.unsettled) if (until <= now) this.unsettled.delete(id);
  }

  private isUnsettled(id: string): boolean {
    const until = this.unsettled.get(id);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.unsettled.delete(id);
    return false;
  }
}

function frozen(account: UserRecord): UserRecord {
  Object.freeze(account.emails);
  Object.freeze(account.roles);
  return Object.freeze(account);
}
