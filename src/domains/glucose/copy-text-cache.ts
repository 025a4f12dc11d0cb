import { LRUCache } from 'lru-cache';

/** CLINIC_COPY_CACHE_MB's default: about 1,400 copies of a 30-day CGM summary (about 12 kB each). */
export const DEFAULT_CLINIC_COPY_CACHE_BYTES = 16 * 1024 * 1024;

let budgetBytes = DEFAULT_CLINIC_COPY_CACHE_BYTES;

/** The bytes each database's kept texts may take from now on (CLINIC_COPY_CACHE_MB), one per process. */
export function setCopyTextCacheBytes(bytes: number): void {
  budgetBytes = bytes;
}

/**
 * Clinic copy texts (clinic-copy.ts) the service has read, by the revision the database gave each
 * (migrations/Migration20261128070000_summary_copy_revisions.ts): a revision names one text for good, so a kept
 * text is never stale and nothing has to forget it but the size budget, least recently used first.
 *
 * Kept as bytes, outside the JavaScript heap: a page of 50 patients carries about 630 kB of them.
 * Read as strings on every page, they were copied by the young generation's collections while the
 * page was answered, then promoted, and a third of the list's CPU went to collecting them. They
 * are written to the socket as they are kept.
 */
export class CopyTextCache {
  private readonly texts: LRUCache<string, Buffer>;

  constructor(maxBytes: number) {
    // A copy is never empty (`{}` at least); the floor of 1 keeps lru-cache's size rule for any text.
    this.texts = new LRUCache({ maxSize: maxBytes, sizeCalculation: (text) => Math.max(1, text.length) });
  }

  /** The text of `revision`'s current (or `previous`) periods, if kept. */
  get(revision: string, previous: boolean): Buffer | undefined {
    return this.texts.get(keyOf(revision, previous));
  }

  /** Keeps `text`, read with `revision` (unless kept already); answers its bytes. */
  keep(revision: string, previous: boolean, text: string): Buffer {
    const key = keyOf(revision, previous);
    const kept = this.texts.get(key);
    if (kept) return kept;
    const bytes = Buffer.from(text);
    this.texts.set(key, bytes);
    return bytes;
  }

  /** The bytes kept. */
  get size(): number {
    return this.texts.calculatedSize;
  }
}

const keyOf = (revision: string, previous: boolean) => `${previous ? 'previous' : 'current'}:${revision}`;

/**
 * One cache per database (keyed by the ORM's configuration, which every entity manager of it
 * shares): revisions come from each database's own sequence, and a test process runs several.
 */
const caches = new WeakMap<object, CopyTextCache>();

export function copyTextCacheOf(ormConfig: object): CopyTextCache {
  let texts = caches.get(ormConfig);
  if (!texts) caches.set(ormConfig, (texts = new CopyTextCache(budgetBytes)));
  return texts;
}
