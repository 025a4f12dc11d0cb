import { describe, expect, it } from '@jest/globals';
import { AppError } from './errors';
import { assertEmail, assertEmails, assertPassword, assertUserId, parseDateTime } from './validation';

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
    expect(reason(() => assertEmail('two@@example.org', 'username'))).toMatch(/not a valid email/);
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
});
