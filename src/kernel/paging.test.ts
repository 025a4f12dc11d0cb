import { describe, expect, it } from '@jest/globals';
import {
  assertFirst,
  decodeCursor,
  encodeCursor,
  isTimeAndIdKey,
  pageArgs,
  pageOf,
  PAGE_SIZE,
  type SortKey,
} from './paging';

/** The key of a list sorted by one text id. */
const isIdKey = (key: SortKey) => key.length === 1 && typeof key[0] === 'string';
const isTimeIdKey = (key: SortKey) => key.length === 2 && key.every((part) => typeof part === 'string');

describe('cursors', () => {
  it('round-trip the sort key of their own list and are opaque url-safe text', () => {
    const cursor = encodeCursor('blobs:0123456789', ['2024-01-02T03:04:05.000Z', 'abc']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('0123456789');
    expect(decodeCursor(cursor, 'blobs:0123456789', 'after', isTimeIdKey)).toEqual(['2024-01-02T03:04:05.000Z', 'abc']);
  });

  it('refuse a cursor of another list, naming the argument', () => {
    const cursor = encodeCursor('blobs:0123456789', ['k']);
    expect(() => decodeCursor(cursor, 'blobs:9876543210', 'after', isIdKey)).toThrow(
      expect.objectContaining({ code: 'INVALID', details: { field: 'after' } }),
    );
  });

  it.each([
    ['garbage', 'not a cursor!'],
    ['not JSON', Buffer.from('{[').toString('base64url')],
    ['another shape', Buffer.from(JSON.stringify({ a: 1 })).toString('base64url')],
    ['another version', Buffer.from(JSON.stringify([2, 'l', ['k']])).toString('base64url')],
    ['an empty key', Buffer.from(JSON.stringify([1, 'l', []])).toString('base64url')],
    ['an object in the key', Buffer.from(JSON.stringify([1, 'l', [{}]])).toString('base64url')],
    ['an empty string', ''],
    ['a very long string', 'a'.repeat(2000)],
    ['a number where the list sorts by text', Buffer.from(JSON.stringify([1, 'l', [1e308]])).toString('base64url')],
    ['a key of another length', Buffer.from(JSON.stringify([1, 'l', ['a', 'b']])).toString('base64url')],
  ])('refuse %s', (_case, cursor) => {
    expect(() => decodeCursor(cursor, 'l', 'after', isIdKey)).toThrow(expect.objectContaining({ code: 'INVALID' }));
  });
});

describe('the time-and-id key check most lists use', () => {
  const isKey = isTimeAndIdKey(/^[0-9a-f]{4}$/);

  it("takes a date-time and an id of the list's shape", () => {
    expect(isKey(['2024-01-02T03:04:05.000Z', 'beef'])).toBe(true);
  });

  it.each([
    [['2024-01-02T03:04:05.000Z']],
    [['2024-01-02T03:04:05.000Z', 'beef', 'x']],
    [['not a time', 'beef']],
    [[1704164645000, 'beef']],
    [['2024-01-02T03:04:05.000Z', 'BEEF']],
    [['2024-01-02T03:04:05.000Z', 1234]],
  ])('refuses %p', (key) => {
    expect(isKey(key as SortKey)).toBe(false);
  });
});

describe('paging rules', () => {
  it('default first to 100 and take 1 to 100', () => {
    expect(assertFirst(undefined)).toBe(PAGE_SIZE.default);
    expect(assertFirst(null)).toBe(100);
    expect(assertFirst(1)).toBe(1);
    expect(assertFirst(100)).toBe(100);
  });

  it.each([0, -1, 101, 1.5])('refuse first: %p, naming first', (first) => {
    expect(() => assertFirst(first)).toThrow(expect.objectContaining({ code: 'INVALID', details: { field: 'first' } }));
  });

  it('start after the cursor and tell whether more rows follow from the extra row', () => {
    const rows = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    const first = pageOf('l', pageArgs('l', 2, null, isIdKey), rows, (row) => [row.id]);
    expect(first).toMatchObject({ nodes: rows.slice(0, 2), hasNextPage: true, hasPreviousPage: false });
    const next = pageArgs('l', 2, first.cursorAt(1), isIdKey);
    expect(next.after).toEqual(['b']);
    const last = pageOf('l', next, rows.slice(2), (row) => [row.id]);
    expect(last).toMatchObject({ nodes: [{ id: 'c' }], hasNextPage: false, hasPreviousPage: true });
  });
});
