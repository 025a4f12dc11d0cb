import { invalid } from './errors';

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
    throw invalid(`${field} "${truncate(value)}" is not a valid email address`, field);
  }
  return value;
}

export function assertEmails(values: string[], field: string, { allowEmpty }: { allowEmpty: boolean }): string[] {
  if (!allowEmpty && values.length === 0) throw invalid(`${field} must contain at least one email address`, field);
  values.forEach((value, index) => assertEmail(value, `${field}[${index}]`));
  const seen = new Set<string>();
  for (const value of values) {
    const key = value.toLowerCase();
    if (seen.has(key)) throw invalid(`${field} contains "${truncate(value)}" more than once`, field);
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

/** Days in a month of a (proleptic Gregorian) year; by rule, since Date.UTC reads years 0-99 as 19xx. */
const daysIn = (year: number, month: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];

/**
 * Whether `value` is an ISO 8601 / RFC 3339 date-time with an explicit offset whose every part
 * exists on the calendar and the clock: February 30th or 24:00 is not one.
 */
export function isDateTime(value: string): boolean {
  const parts = DATE_TIME.exec(value)?.map(Number);
  return (
    parts !== undefined &&
    parts[2] >= 1 &&
    parts[2] <= 12 &&
    parts[3] >= 1 &&
    parts[3] <= daysIn(parts[1], parts[2]) &&
    parts[4] <= 23 &&
    parts[5] <= 59 &&
    parts[6] <= 59 &&
    (Number.isNaN(parts[9]) || (parts[9] <= 23 && parts[10] <= 59))
  );
}

/** The instant of an ISO 8601 date-time (see isDateTime); never rolled over into another day. */
export function parseDateTime(value: string, field: string): Date {
  if (!isDateTime(value)) {
    throw invalid(`${field} "${truncate(value)}" is not an ISO 8601 date-time such as 2024-01-02T03:04:05Z`, field);
  }
  return new Date(value);
}

export function truncate(value: string, max = 64): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
