import { LRUCache } from 'lru-cache';

/** CLINIC_COPY_CACHE_MB's default: about 1,400 copies of a 30-day CGM summary (about 12 kB each). */
const DEFAULT_CLINIC_COPY_CACHE_BYTES = 16 * 1024 * 1024;

let budgetBytes = DEFAULT_CLINIC_COPY_CACHE_BYTES;

/** The bytes each database's kept copies may take from now on (CLINIC_COPY_CACHE_MB), one per process. */
export function setClinicCopyCacheBytes(bytes: number): void {
  budgetBytes = bytes;
}

/** The bytes a database's cache is made with. */
export const clinicCopyCacheBytes = (): number => budgetBytes;

/** What a kept copy costs beside its text: its dates and the cache's entry, about. */
const ENTRY_BYTES = 200;

/** What the cache reads of a copy: its text's bytes, for its size. */
interface WithText {
  text: Buffer | null;
}

/**
 * Clinic copies (clinic-copy.ts) with their dates, as the service has read them, by the revision
 * the database gave each (migrations/Migration20261128070000_summary_copy_revisions.ts): a revision
 * names one copy for good, so a kept copy is never stale, and nothing has to forget one but the
 * size budget, least recently used first.
 *
 * The texts are kept as bytes, outside the JavaScript heap: a page of 50 patients carries about
 * 630 kB of them. Read as strings on every page, they were copied by the young generation's
 * collections while the page was answered, then promoted, and a third of the list's CPU went to
 * collecting them. They are written to the socket as they are kept.
 *
 * A revision answers the same object every time, so what a caller makes of a copy may be kept
 * beside it (a WeakMap keyed by the copy), and goes when the copy goes.
 */
export class ClinicCopyCache<Copy extends WithText> {
  private readonly copies: LRUCache<string, Copy>;

  constructor(maxBytes: number) {
    this.copies = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: (copy) => ENTRY_BYTES + (copy.text?.length ?? 0),
    });
  }

  /** The copy of `revision`'s current (or `previous`) periods, if kept. */
  get(revision: string, previous: boolean): Copy | undefined {
    return this.copies.get(keyOf(revision, previous));
  }

  /** The copy kept for `revision`, else the one `make` makes of what was read, kept from now on. */
  keep(revision: string, previous: boolean, make: () => Copy): Copy {
    const key = keyOf(revision, previous);
    let copy = this.copies.get(key);
    if (!copy) this.copies.set(key, (copy = make()));
    return copy;
  }

  /** The bytes kept, about. */
  get size(): number {
    return this.copies.calculatedSize;
  }
}

const keyOf = (revision: string, previous: boolean) => `${previous ? 'previous' : 'current'}:${revision}`;
