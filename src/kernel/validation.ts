import { invalid, type AppError } from './errors';

/**
 * Field rules shared by several domains. Each check throws INVALID with a reason naming the
 * field, so both transports report the same thing.
 */

export const USER_ID_PATTERN = /^([0-9a-f]{10}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

// Practical RFC 5322 subset: one @, no spaces, a dot in the domain; length per RFC 5321.
const EMAIL_PATTERN = /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+\.[^\s@"(),:;<>[\\\].]+$/;

export function assertUserId(value: string, field = 'userId'): string {
  if (!USER_ID_PATTERN.test(value)) throw invalid(`${field} "${truncate(value)}" is not a valid user id`, field);
  return value;
}

export function assertEmail(value: string, field: string): string {
  if (value.length < 6) throw invalid(`${field} must be at least 6 characters long`, field);
  if (value.length > 254 || !EMAIL_PATTERN.test(value)) {
    // Without the value: a login name field is where a password gets typed by mistake.
    throw invalid(`${field} is not a valid email address`, field);
  }
  return value;
}

/** Addresses one account may have: every one can log in, so each is a name to guard and to answer with. */
export const MAX_EMAILS = 10;

export function assertEmails(values: string[], field: string, { allowEmpty }: { allowEmpty: boolean }): string[] {
  if (!allowEmpty && values.length === 0) throw invalid(`${field} must contain at least one email address`, field);
  if (values.length > MAX_EMAILS) throw invalid(`${field} may hold at most ${MAX_EMAILS} addresses`, field);
  values.forEach((value, index) => assertEmail(value, `${field}[${index}]`));
  const seen = new Set<string>();
  for (const value of values) {
    const key = value.toLowerCase();
    if (seen.has(key)) throw invalid(`${field} contains an address more than once`, field);
    seen.add(key);
  }
  return values;
}

/** Passwords: 8 to 72 characters without whitespace (72 is where bcrypt-era clients stop). */
export function assertPassword(value: string, field = 'password'): string {
  if (value.length < 8 || value.length > 72) throw invalid(`${field} must be 8 to 72 characters long`, field);
  if (/\s/.test(value)) throw invalid(`${field} must not contain whitespace`, field);
  return value;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** Days in a month of a (proleptic Gregorian) year; by rule, since Date.UTC reads years 0-99 as 19xx. */
const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : DAYS_IN_MONTH[month - 1]!;

/**
 * Whether `value` is an ISO 8601 / RFC 3339 date-time with an explicit offset whose every part
 * exists on the calendar and the clock: February 30th or 24:00 is not one.
 */
export function isDateTime(value: string): boolean {
  // Each part read where it is checked: an upload checks a thousand of these.
  const parts = DATE_TIME.exec(value);
  if (!parts) return false;
  const month = Number(parts[2]);
  const day = Number(parts[3]);
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(Number(parts[1]), month) &&
    Number(parts[4]) <= 23 &&
    Number(parts[5]) <= 59 &&
    Number(parts[6]) <= 59 &&
    (parts[9] === undefined || (Number(parts[9]) <= 23 && Number(parts[10]) <= 59))
  );
}

/**
 * The instants a date-time input may name: years 1 to 9999 in UTC, once its offset is applied
 * (so 0001-01-01T00:00:00+01:00, in year 0, is outside). PostgreSQL's timestamptz reaches
 * further (4713 BC to 294276 AD), but ISO 8601 years before 1 are astronomical (0000 is 1 BC)
 * and reach PostgreSQL as values it refuses; four-digit years are also all RFC 3339 writes.
 */
export const DATE_TIME_RANGE = {
  earliest: new Date('0001-01-01T00:00:00.000Z'),
  latest: new Date('9999-12-31T23:59:59.999Z'),
  description: 'between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z (UTC)',
} as const;

/** Whether an instant lies in DATE_TIME_RANGE. */
export function isInDateTimeRange(date: Date): boolean {
  const time = date.getTime();
  return time >= DATE_TIME_RANGE.earliest.getTime() && time <= DATE_TIME_RANGE.latest.getTime();
}

/** The instant of `value` when it is a date-time (isDateTime) that lies in DATE_TIME_RANGE. */
export function storableInstant(value: string): Date | undefined {
  if (!isDateTime(value)) return undefined;
  const date = new Date(value);
  return isInDateTimeRange(date) ? date : undefined;
}

/** Whether `value` is a date-time (isDateTime) whose instant lies in DATE_TIME_RANGE. */
export function isStorableDateTime(value: string): boolean {
  return storableInstant(value) !== undefined;
}

/**
 * The instant of an ISO 8601 date-time (see isDateTime); never rolled over into another day,
 * and inside DATE_TIME_RANGE.
 */
export function parseDateTime(value: string, field: string): Date {
  if (!isDateTime(value)) {
    throw invalid(`${field} "${truncate(value)}" is not an ISO 8601 date-time such as 2024-01-02T03:04:05Z`, field);
  }
  const date = new Date(value);
  if (!isInDateTimeRange(date)) {
    throw invalid(
      `${field} "${truncate(value)}" is out of range: date-times lie ${DATE_TIME_RANGE.description}`,
      field,
    );
  }
  return date;
}

/**
 * Text may not hold NUL (U+0000): PostgreSQL cannot store it in any text column, and no name,
 * address, password or identifier needs it. Every input is checked once where it enters (the
 * HTTP edge, the REST body, the GraphQL request), so the field is named.
 */
export const NUL = '\u0000';

export const nulRefused = (field: string) => invalid(`${field} must not contain NUL characters`, field);

/**
 * Whether a JSON text may hold a NUL once parsed: JSON has no raw control characters in strings,
 * so a NUL arrives only as the escape `\u0000`. An escaped backslash before `u0000` only costs the
 * full check (findNul).
 */
export const mayHoldNul = (json: string): boolean => json.includes('\\u0000');

/** Objects as JSON, query-string and GraphQL parsers make them (some without a prototype). */
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
};

/**
 * Where a NUL character hides in a JSON-like value: the path of the first string (or object key)
 * holding one below `path` (`updates.emails[1]`, `[3].message`), `path` itself when `value` is
 * such a string, or undefined. Looks into plain objects and arrays only, never into class
 * instances (uploads, streams).
 */
export function findNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = findNul(value[index], `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes(NUL)) return path ? `a field name in ${path}` : 'a field name';
    const found = findNul(item, path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * findNul for GraphQL variables, naming the field inside its variable as the services name
 * fields (`username` for `input.username`; a variable that is the value itself by its name).
 */
export function findNulInVariables(variables: unknown): string | undefined {
  const found = findNul(variables);
  return found === undefined ? undefined : (/^\w+\.(.+)$/.exec(found)?.[1] ?? found);
}

/** How deeply objects and lists of a request may nest: far beyond any input of the API. */
export const MAX_JSON_DEPTH = 32;

/** Whether `value` nests objects or lists deeper than `max` levels; iterative, so any depth is safe to ask about. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  // Only objects and lists are queued: an upload's thousand records hold mostly numbers and text.
  const pending: [object, number][] = [];
  const queue = (item: unknown, depth: number) => {
    if (item !== null && typeof item === 'object') pending.push([item, depth]);
  };
  queue(value, 0);
  while (pending.length) {
    const [item, depth] = pending.pop()!;
    if (depth >= max) return true;
    for (const child of Object.values(item)) queue(child, depth + 1);
  }
  return false;
}

export const tooDeep = (what: string, max = MAX_JSON_DEPTH) =>
  invalid(`Objects or lists in the ${what} nest more than ${max} levels deep`, what);

/**
 * The most entries any list of a request may hold (ids, emails, filters, permissions): a bound
 * on the work and storage one request can cause. Lists with a smaller natural bound have their
 * own, tighter rule in their domain.
 */
export const MAX_LIST_ENTRIES = 100;

/** The first list longer than `max` in a JSON-like value: its path (as findNul names it) and length. */
export function findLongList(
  value: unknown,
  max = MAX_LIST_ENTRIES,
  path = '',
): { path: string; length: number } | undefined {
  if (Array.isArray(value)) {
    if (value.length > max) return { path, length: value.length };
    for (let index = 0; index < value.length; index++) {
      const found = findLongList(value[index], max, `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (!isPlainObject(value)) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = findLongList(item, max, path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

export const tooManyEntries = (field: string, length: number, max = MAX_LIST_ENTRIES) =>
  invalid(`${field} holds ${length} entries; at most ${max} are allowed`, field);

/**
 * The refusal of GraphQL variables holding a list over MAX_LIST_ENTRIES, naming the field inside
 * its variable as findNulInVariables does; undefined when every list is within bounds.
 */
export function longListInVariables(variables: unknown): AppError | undefined {
  const found = findLongList(variables);
  return found && tooManyEntries(/^\w+\.(.+)$/.exec(found.path)?.[1] ?? found.path, found.length);
}

/** Throws INVALID naming the field (see findNul) when `value` holds a NUL anywhere. */
export function assertNoNul(value: unknown, field: string): void {
  const found = findNul(value, field);
  if (found !== undefined) throw nulRefused(found || 'a value');
}

export function truncate(value: string, max = 64): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
