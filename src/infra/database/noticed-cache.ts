import { LRUCache } from 'lru-cache';
import type { DatabaseEvents } from './events';

/** What a NoticedCache needs of the database's notifications. */
export type Notices = Pick<DatabaseEvents, 'listening' | 'on' | 'onConnect'>;

/** Longer than any transaction that changes what a cache keeps takes to commit and announce it. */
export const CHANGE_SETTLES_MS = 10_000;

export interface NoticedCacheOptions<V> {
  /** The channel on which a trigger names each key whose rows changed. */
  channel: string;
  max: number;
  /** The value as kept: one kept value is shared by every request that reads it. */
  keep?: (value: V) => V;
  now?: () => number;
}

/**
 * Values read from PostgreSQL, kept in memory between requests and kept current by a trigger
 * whose notice names the key whose rows changed, and reaches every instance at commit:
 * - a key another instance changed is forgotten when the notice arrives (milliseconds);
 * - one this instance is changing (`changing`) is read from the database alone until
 *   CHANGE_SETTLES_MS later, so its writer reads its own change at once;
 * - a read that began before a notice keeps nothing it read: it may predate the change;
 * - nothing is served or kept while notices could be missed (the listener reconnecting), and
 *   everything is forgotten when the listener is back.
 */
export class NoticedCache<V extends object> {
  private readonly values: LRUCache<string, V>;
  /** Keys this instance is changing, with when they may be kept again. */
  private readonly unsettled = new Map<string, number>();
  /** Counts notices: a read that saw another count when it began keeps nothing. */
  private generation = 0;
  private readonly keep: (value: V) => V;
  private readonly now: () => number;

  constructor(
    private readonly notices: Notices,
    private readonly options: NoticedCacheOptions<V>,
  ) {
    this.values = new LRUCache({ max: options.max });
    this.keep = options.keep ?? ((value) => value);
    this.now = options.now ?? Date.now;
    notices.on(options.channel, (key) => this.forget(key));
    notices.onConnect(async () => {
      this.values.clear();
      this.generation += 1;
    });
  }

  /** Values by key: those kept, and the rest through `load`, kept when nothing changed meanwhile. */
  async read(
    keys: readonly string[],
    load: (keys: readonly string[]) => Promise<Map<string, V>>,
  ): Promise<Map<string, V>> {
    if (!this.notices.listening) return load(keys);
    const found = new Map<string, V>();
    const missing: string[] = [];
    for (const key of keys) {
      const kept = this.values.get(key);
      if (kept) found.set(key, kept);
      else missing.push(key);
    }
    if (missing.length === 0) return found;
    const generation = this.generation;
    const loaded = await load(missing);
    const keeping = generation === this.generation && this.notices.listening;
    for (const [key, value] of loaded) {
      if (!keeping || this.isUnsettled(key)) {
        found.set(key, value);
        continue;
      }
      const kept = this.keep(value);
      this.values.set(key, kept);
      found.set(key, kept);
    }
    return found;
  }

  /** Before this instance writes what `key` names: forgotten, and read from the database until the change settles. */
  changing(key: string): void {
    if (this.unsettled.size >= this.options.max) this.dropSettled();
    this.unsettled.set(key, this.now() + CHANGE_SETTLES_MS);
    this.forget(key);
  }

  private forget(key: string): void {
    this.values.delete(key);
    this.generation += 1;
  }

  private dropSettled(): void {
    const now = this.now();
    for (const [key, until] of this.unsettled) if (until <= now) this.unsettled.delete(key);
  }

  private isUnsettled(key: string): boolean {
    const until = this.unsettled.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.unsettled.delete(key);
    return false;
  }
}
