import { describe, expect, it } from '@jest/globals';
import { AppError } from './errors';
import {
  assertEmail,
  assertEmails,
  assertNoNul,
  assertPassword,
  assertUserId,
  findNul,
  findLongList,
  findNulInVariables,
  mayHoldNul,
  longListInVariables,
  MAX_EMAILS,
  MAX_LIST_ENTRIES,
  nestedDeeperThan,
  isDateTime,
  isStorableDateTime,
  parseDateTime,
  storableInstant,
} from './validation';

const reason = (check: () => unknown) => {
  try {
    check();
  } catch (error) {
    return error instanceof AppError ? `${error.code}: ${error.message}` : String(error);
  }
  return 'accepted';
};

describe('field rules', () => {
  it('accepts both user id forms and nothing else', () => {
    expect(reason(() => assertUserId('0123456789'))).toBe('accepted');
    expect(reason(() => assertUserId('0123abcd-0123-4567-89ab-0123456789ab'))).toBe('accepted');
    expect(reason(() => assertUserId('0123ABCDEF'))).toMatch(/^INVALID: userId "0123ABCDEF" is not a valid user id/);
  });

  it('checks emails: length, shape, uniqueness ignoring case', () => {
    expect(reason(() => assertEmail('a@b.co', 'username'))).toBe('accepted');
    expect(reason(() => assertEmail('a@b.c', 'username'))).toMatch(/at least 6/);
    expect(reason(() => assertEmail('two@@example.org', 'username'))).toBe(
      'INVALID: username is not a valid email address',
    );
    const addresses = (count: number) => Array.from({ length: count }, (_, index) => `a${index}@example.org`);
    expect(reason(() => assertEmails(addresses(MAX_EMAILS), 'emails', { allowEmpty: false }))).toBe('accepted');
    expect(reason(() => assertEmails(addresses(MAX_EMAILS + 1), 'emails', { allowEmpty: false }))).toBe(
      `INVALID: emails may hold at most ${MAX_EMAILS} addresses`,
    );
    // A password typed into the login name field is never echoed.
    expect(reason(() => assertEmail('correct-horse-battery', 'username'))).not.toMatch(/correct-horse/);
    expect(reason(() => assertEmails(['a@example.org', 'A@example.org'], 'emails', { allowEmpty: false }))).toMatch(
      /more than once/,
    );
    expect(reason(() => assertEmails([], 'emails', { allowEmpty: true }))).toBe('accepted');
  });

  it('checks passwords: 8 to 72 characters, no whitespace', () => {
    expect(reason(() => assertPassword('12345678'))).toBe('accepted');
    expect(reason(() => assertPassword('1234567'))).toMatch(/8 to 72/);
    expect(reason(() => assertPassword('x'.repeat(73)))).toMatch(/8 to 72/);
    expect(reason(() => assertPassword('1234 5678'))).toMatch(/whitespace/);
  });

  it('parses ISO 8601 date-times with an offset only', () => {
    expect(parseDateTime('2024-01-02T03:04:05+01:00', 'at').toISOString()).toBe('2024-01-02T02:04:05.000Z');
    expect(reason(() => parseDateTime('2024-01-02', 'at'))).toMatch(/not an ISO 8601 date-time/);
    expect(reason(() => parseDateTime('2024-13-45T99:00:00Z', 'at'))).toMatch(/not an ISO 8601 date-time/);
  });

  it('refuses dates and times that do not exist instead of rolling them over', () => {
    expect(parseDateTime('2024-02-29T23:59:59.999Z', 'at').toISOString()).toBe('2024-02-29T23:59:59.999Z');
    // Year 0 is a leap year (divisible by 400), though out of range; 1900 is not.
    expect(isDateTime('0000-02-29T00:00:00Z')).toBe(true);
    expect(isDateTime('0000-02-30T00:00:00Z')).toBe(false);
    expect(reason(() => parseDateTime('1900-02-29T00:00:00Z', 'at'))).toMatch(/not an ISO 8601 date-time/);
    expect(parseDateTime('2024-12-31T00:00:00-14:00', 'at').toISOString()).toBe('2024-12-31T14:00:00.000Z');
    for (const impossible of [
      '2023-02-29T10:00:00Z',
      '2024-02-30T10:00:00Z',
      '2024-04-31T10:00:00Z',
      '2024-00-10T10:00:00Z',
      '2024-01-00T10:00:00Z',
      '2024-01-02T24:00:00Z',
      '2024-01-02T10:60:00Z',
      '2024-01-02T10:00:60Z',
      '2024-01-02T10:00:00+24:00',
      '2024-01-02T10:00:00+01:60',
    ]) {
      expect(reason(() => parseDateTime(impossible, 'at'))).toMatch(/not an ISO 8601 date-time/);
    }
  });

  it('refuses instants outside years 1 to 9999 in UTC, after applying the offset', () => {
    for (const outside of [
      '0000-01-01T00:00:00Z',
      '0000-12-31T23:59:59.999Z',
      '0001-01-01T00:00:00+01:00',
      '0001-01-01T00:59:59.999+01:00',
      '9999-12-31T23:59:59-00:01',
      '9999-12-31T23:00:00-01:00',
    ]) {
      expect(reason(() => parseDateTime(outside, 'termsAccepted'))).toMatch(
        /^INVALID: termsAccepted ".*" is out of range: date-times lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z/,
      );
      expect(isStorableDateTime(outside)).toBe(false);
      expect(storableInstant(outside)).toBeUndefined();
    }
    // The instant an upload's record is stored at, its offset applied.
    expect(storableInstant('2024-01-02T03:04:05+05:30')?.toISOString()).toBe('2024-01-01T21:34:05.000Z');
    expect(storableInstant('2024-02-30T00:00:00Z')).toBeUndefined();
    expect(parseDateTime('0001-01-01T00:00:00Z', 'at').toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parseDateTime('0001-01-01T01:00:00+01:00', 'at').toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parseDateTime('9999-12-31T23:59:59.999Z', 'at').toISOString()).toBe('9999-12-31T23:59:59.999Z');
    expect(parseDateTime('9999-12-31T23:59:59+00:00', 'at').toISOString()).toBe('9999-12-31T23:59:59.000Z');
    // Negative and five-digit years are not RFC 3339 date-times at all.
    expect(reason(() => parseDateTime('-0001-01-01T00:00:00Z', 'at'))).toMatch(/not an ISO 8601 date-time/);
    expect(reason(() => parseDateTime('+10000-01-01T00:00:00Z', 'at'))).toMatch(/not an ISO 8601 date-time/);
  });
});

describe('NUL characters', () => {
  it('finds the first string or key holding one, by its path', () => {
    expect(findNul({ updates: { username: 'a@b.org', emails: ['x@y.org', 'a\u0000b'] } })).toBe('updates.emails[1]');
    expect(findNul([{ message: 'ok' }, { message: '\u0000' }])).toBe('[1].message');
    expect(findNul('a\u0000', 'password')).toBe('password');
    expect(findNul({ updates: { ['us\u0000er']: 'x' } })).toBe('a field name in updates');
    expect(findNul(Object.assign(Object.create(null), { q: '\u0000' }))).toBe('q');
    expect(findNul({ clean: ['a', 1, true, null], date: new Date() })).toBeUndefined();
    // Class instances (uploads, streams) are not looked into.
    expect(
      findNul({
        file: new (class {
          text = '\u0000';
        })(),
      }),
    ).toBeUndefined();
  });

  it('tells from a JSON text alone when no NUL can be in it', () => {
    const withNul = JSON.stringify([{ message: 'a\u0000b' }]);
    expect(mayHoldNul(withNul)).toBe(true);
    expect(findNul(JSON.parse(withNul))).toBe('[0].message');
    expect(mayHoldNul(JSON.stringify({ ['k\u0000']: 1 }))).toBe(true);
    expect(mayHoldNul(JSON.stringify([{ message: 'ab', time: '2024-01-02T03:04:05Z' }]))).toBe(false);
    // JSON refuses a raw NUL, so the escape is the only way one arrives.
    expect(() => JSON.parse('["a\u0000"]')).toThrow(SyntaxError);
    // An escaped backslash before u0000 is no NUL: the text only gets the full check.
    const backslash = JSON.stringify(['\\u0000']);
    expect(mayHoldNul(backslash)).toBe(true);
    expect(findNul(JSON.parse(backslash))).toBeUndefined();
  });

  it('names a variable field as the services do', () => {
    expect(findNulInVariables({ input: { username: 'a\u0000' } })).toBe('username');
    expect(findNulInVariables({ input: { emails: ['a', '\u0000'] } })).toBe('emails[1]');
    expect(findNulInVariables({ username: 'u', password: 'p\u0000' })).toBe('password');
    expect(findNulInVariables({ ids: ['\u0000'] })).toBe('ids[0]');
    expect(findNulInVariables({ input: { username: 'clean' } })).toBeUndefined();
  });

  it('refuses with INVALID naming the field, never the value', () => {
    expect(reason(() => assertNoNul({ password: 'secret\u0000' }, 'body'))).toBe(
      'INVALID: body.password must not contain NUL characters',
    );
    expect(reason(() => assertNoNul('clean', 'x'))).toBe('accepted');
  });
});

describe('list bounds', () => {
  const many = (count: number) => new Array(count).fill('x');

  it(`finds the first list over ${MAX_LIST_ENTRIES} entries, however deep, and its length`, () => {
    expect(findLongList({ input: { emails: many(MAX_LIST_ENTRIES) } })).toBeUndefined();
    expect(findLongList({ input: { emails: many(MAX_LIST_ENTRIES + 1) } })).toEqual({
      path: 'input.emails',
      length: MAX_LIST_ENTRIES + 1,
    });
    expect(findLongList([{ tags: many(3) }, { tags: many(4) }], 3)).toEqual({ path: '[1].tags', length: 4 });
    expect(findLongList(many(5), 4)).toEqual({ path: '', length: 5 });
  });

  it('refuses variables naming the field as the services do, never the values', () => {
    expect(longListInVariables({ input: { emails: many(101) } })?.message).toBe(
      'emails holds 101 entries; at most 100 are allowed',
    );
    expect(longListInVariables({ ids: many(101) })).toMatchObject({ code: 'INVALID', details: { field: 'ids' } });
    expect(longListInVariables({ ids: many(100), input: { roles: [] } })).toBeUndefined();
    expect(longListInVariables(undefined)).toBeUndefined();
  });
});

describe('nesting bound', () => {
  const nested = (levels: number): unknown => (levels === 0 ? 1 : { a: nested(levels - 1) });

  it('measures objects and lists alike, and answers for any depth without recursing', () => {
    expect(nestedDeeperThan(nested(3), 3)).toBe(false);
    expect(nestedDeeperThan(nested(4), 3)).toBe(true);
    expect(nestedDeeperThan([[[1]]], 3)).toBe(false);
    expect(nestedDeeperThan([[[[1]]]], 3)).toBe(true);
    expect(nestedDeeperThan('text', 0)).toBe(false);
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(nestedDeeperThan(deep, 32)).toBe(true);
  });
});
