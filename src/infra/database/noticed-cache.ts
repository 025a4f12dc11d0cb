import { LRUCache } from 'lru-cache';
import type { DatabaseEvents } from './events';

/** What a NoticedCache needs of the database's notifications. */
export type Notices = Pick<DatabaseEvents, 'listening' | 'on' | 'onConnect'>;

/** Longer than any transaction that changes what a cache keeps takes to commit and announce it. */
export const CHANGE_SETTLES_MS = 10_000;

export interface NoticedCacheOptions<V> {
  /** The channel on which a trigger names each key (or group of keys) whose rows changed. */
  channel: string;
  max: number;
  /** With `maxSize`, what the values kept may weigh in all, each weighing what `sizeOf` says (at least 1). */
  maxSize?: number;
  sizeOf?: (value: V) => number;
  /**
   * The group a key belongs to, when notices name groups rather than keys (a clinic, for each of
   * its counts): a notice, or `changing`, then applies to every key of the group. Each key alone by default.
   */
  groupOf?: (key: string) => string;
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
  /** The keys kept of each group, when keys are grouped. */
  private readonly grouped = new Map<string, Set<string>>();
  /** Groups this instance is changing, with when they may be kept again. */
  private readonly unsettled = new Map<string, number>();
  /** Counts notices: a read that saw another count when it began keeps nothing. */
  private generation = 0;
  private readonly keep: (value: V) => V;
  private readonly now: () => number;
  private readonly groupOf: (key: string) => string;

  constructor(
    private readonly notices: Notices,
    private readonly options: NoticedCacheOptions<V>,
  ) {
    const { max, maxSize, sizeOf } = options;
    this.values = new LRUCache({
      max,
      dispose: (_, key) => this.ungroup(key),
      ...(maxSize !== undefined && { maxSize, sizeCalculation: (value: V) => Math.max(1, sizeOf?.(value) ?? 1) }),
    });
    this.keep = options.keep ?? ((value) => value);
    this.now = options.now ?? Date.now;
    this.groupOf = options.groupOf ?? ((key) => key);
    notices.on(options.channel, (group) => this.forget(group));
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
      if (this.options.groupOf) this.group(key);
      found.set(key, kept);
    }
    return found;
  }

  /** Before this instance writes what `group` names: forgotten, and read from the database until the change settles. */
  changing(group: string): void {
    if (this.unsettled.size >= this.options.max) this.dropSettled();
    this.unsettled.set(group, this.now() + CHANGE_SETTLES_MS);
    this.forget(group);
  }

  private forget(group: string): void {
    const keys = this.options.groupOf ? [...(this.grouped.get(group) ?? [])] : [group];
    for (const key of keys) this.values.delete(key);
    this.generation += 1;
  }

  private group(key: string): void {
    const group = this.groupOf(key);
    let keys = this.grouped.get(group);
    if (!keys) this.grouped.set(group, (keys = new Set()));
    keys.add(key);
  }

  /** A key is no longer kept (forgotten, evicted or replaced): a replaced one is grouped again as it is set. */
  private ungroup(key: string): void {
    if (!this.options.groupOf) return;
    const group = this.groupOf(key);
    const keys = this.grouped.get(group);
    keys?.delete(key);
    if (keys?.size === 0) this.grouped.delete(group);
  }

  private dropSettled(): void {
    const now = this.now();
    for (const [key, until] of this.unsettled) if (until <= now) this.unsettled.delete(key);
  }

  private isUnsettled(key: string): boolean {
    const group = this.groupOf(key);
    const until = this.unsettled.get(group);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.unsettled.delete(group);
    return false;
  }
}
