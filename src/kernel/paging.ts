import { invalid } from './errors';

/**
 * Keyset paging, the same for every list that can grow without bound. A cursor names the list it
 * belongs to and the sort key of one row; the next page starts strictly after that key, so rows
 * inserted meanwhile never shift a page (an offset would). Cursors are opaque to clients: base64url
 * of a small JSON array, refused when they do not decode or belong to another list.
 */

/** `first` when omitted, and its largest value. */
export const PAGE_SIZE = { default: 100, max: 100 } as const;

/** A sort key: the values a list is ordered by, most significant first, unique per row. */
export type SortKey = readonly (string | number)[];

/**
 * A page asked of one list: at most `first` rows after `after` (none: from the start), past the
 * first `offset` of those (legacy offset paging, skipped in SQL; none when omitted).
 */
export interface PageArgs {
  first: number;
  after: SortKey | null;
  offset?: number;
}

/** A page of rows of one list, with the cursor of each row. */
export interface Page<T> {
  nodes: T[];
  /**
   * The cursor of the row at `index`, encoded when asked: most queries select no cursor, and
   * encoding one per row of every nested page cost a dashboard query about a sixth of its time.
   */
  cursorAt(index: number): string;
  hasNextPage: boolean;
  /** Forward paging only: true when the page starts after a cursor or an offset. */
  hasPreviousPage: boolean;
}

const VERSION = 1;

/** The cursor of the row with sort key `key` in list `list` (e.g. `blobs:<userId>:<filter>`). */
export function encodeCursor(list: string, key: SortKey): string {
  return Buffer.from(JSON.stringify([VERSION, list, key]), 'utf8').toString('base64url');
}

/**
 * Whether a key has the list's own shape: its parts' number and types, as its SQL compares them.
 * Every list has one: a cursor is client input, and a number where a list sorts by text made
 * PostgreSQL fail (42883) instead of the request.
 */
export type KeyCheck = (key: SortKey) => boolean;

/**
 * The key check of a list sorted by a time (ISO 8601 text), then a unique id matching `id`:
 * most lists' cursors; a key of another shape is refused (decodeCursor).
 */
export const isTimeAndIdKey =
  (id: RegExp): KeyCheck =>
  (key) =>
    key.length === 2 &&
    typeof key[0] === 'string' &&
    !Number.isNaN(Date.parse(key[0])) &&
    typeof key[1] === 'string' &&
    id.test(key[1]);

/**
 * The sort key a cursor of `list` holds; a cursor that does not decode, is of another list, or
 * whose key `valid` refuses, is refused.
 */
export function decodeCursor(cursor: string, list: string, field: string, valid: KeyCheck): SortKey {
  const refused = () =>
    invalid(`${field} is not a cursor of this list: pass the endCursor or a cursor of a page of the same list`, field);
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(cursor)) throw refused();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  if (!Array.isArray(decoded) || decoded.length !== 3) throw refused();
  const [version, owner, key] = decoded as unknown[];
  if (version !== VERSION || owner !== list || !Array.isArray(key) || key.length === 0) throw refused();
  if (!key.every((part) => typeof part === 'string' || (typeof part === 'number' && Number.isFinite(part))))
    throw refused();
  if (!valid(key as SortKey)) throw refused();
  return key as SortKey;
}

/** `first` checked: 1 to PAGE_SIZE.max, PAGE_SIZE.default when omitted. */
export function assertFirst(first: number | null | undefined, field = 'first'): number {
  if (first === null || first === undefined) return PAGE_SIZE.default;
  if (!Number.isInteger(first) || first < 1 || first > PAGE_SIZE.max)
    throw invalid(`${field} must be an integer from 1 to ${PAGE_SIZE.max}`, field);
  return first;
}

/** `offset` checked: an integer of at least 0, none (0) when omitted. */
export function assertOffset(offset: number | null | undefined, field = 'offset'): number {
  if (offset === null || offset === undefined) return 0;
  if (!Number.isInteger(offset) || offset < 0) throw invalid(`${field} must be an integer of at least 0`, field);
  return offset;
}

/** The paging arguments of `list`, checked; `offset` only where the list skips rows in SQL. */
export function pageArgs(
  list: string,
  first: number | null | undefined,
  after: string | null | undefined,
  valid: KeyCheck,
  offset?: number | null,
): PageArgs {
  const checked: PageArgs = {
    first: assertFirst(first),
    after: after === null || after === undefined ? null : decodeCursor(after, list, 'after', valid),
  };
  const skipped = assertOffset(offset);
  return skipped ? { ...checked, offset: skipped } : checked;
}

/**
 * The page from the rows a query returned for it: the query asks one row more than `first`, so
 * the extra row says whether there is a next page.
 */
export function pageOf<T>(list: string, args: PageArgs, rows: T[], keyOf: (row: T) => SortKey): Page<T> {
  const nodes = rows.slice(0, args.first);
  return {
    nodes,
    cursorAt: (index) => encodeCursor(list, keyOf(nodes[index]!)),
    hasNextPage: rows.length > args.first,
    hasPreviousPage: args.after !== null || (args.offset ?? 0) > 0,
  };
}

/** A page of a list and, when the caller asks for it, the size of the whole list. */
export interface PagedList<T> {
  page: Page<T>;
  count: () => Promise<number>;
}

/** The legacy REST paging (`page`, `size`): offsets, which the REST layer reads off a connection. */
export const LEGACY_PAGE_SIZE = { default: 100, max: 1000 } as const;

/** The legacy offset page, checked: rows page*size to (page+1)*size of the list. */
export function assertLegacyPaging(page = 0, size: number = LEGACY_PAGE_SIZE.default): { page: number; size: number } {
  if (!Number.isInteger(page) || page < 0) throw invalid('page must be an integer of at least 0', 'page');
  if (!Number.isInteger(size) || size < 1 || size > LEGACY_PAGE_SIZE.max)
    throw invalid(`size must be an integer from 1 to ${LEGACY_PAGE_SIZE.max}`, 'size');
  return { page, size };
}
