import { describe, expect, it } from '@jest/globals';
import { AppError } from '../kernel/errors';
import { isDatabaseUnavailable, isRefusedValue } from './database/availability';
import { asAppError } from './failures';
import { ObjectStoreUnavailableError } from './object-store/object-store';

/** Errors as pg raises them and MikroORM wraps them (DriverException copies `code`). */
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });
const wrapped = (inner: Error) =>
  Object.assign(new Error(inner.message), { code: (inner as { code?: string }).code, cause: inner });

describe('database failures', () => {
  it('counts an unreachable or refusing server as unavailable', () => {
    expect(isDatabaseUnavailable(pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(pgError('57P01', 'terminating connection')))).toBe(true);
    expect(isDatabaseUnavailable(pgError('08006', 'connection failure'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('never counts a refused statement as an outage', () => {
    for (const refused of [
      pgError('22021', 'invalid byte sequence for encoding "UTF8": 0x00'),
      pgError('22P05', 'unsupported Unicode escape sequence'),
      pgError('22007', 'invalid input syntax for type timestamp with time zone'),
      pgError('22008', 'date/time field value out of range: "0000-01-01T00:00:00.000Z"'),
      wrapped(pgError('22008', 'date/time field value out of range')),
      // A NUL in an inlined statement cuts the message short: the server answers, it is not down.
      pgError('08P01', 'invalid message format'),
    ]) {
      expect(isDatabaseUnavailable(refused)).toBe(false);
    }
    expect(isRefusedValue(wrapped(pgError('22021', 'invalid byte sequence')))).toBe(true);
    expect(isRefusedValue(pgError('23505', 'duplicate key'))).toBe(false);
  });
});

describe('asAppError', () => {
  it('answers a refused value with INVALID, without repeating it', () => {
    const error = asAppError(pgError('22008', 'date/time field value out of range: "0000-01-01T00:00:00.000Z"'));
    expect(error).toMatchObject({ code: 'INVALID' });
    expect(error?.message).not.toMatch(/0000/);
  });

  it('names the kind of dependency only, keeping its details in the cause', () => {
    const store = new ObjectStoreUnavailableError('filesystem store at /var/lib/islet/objects failed to store a/b');
    const error = asAppError(store)!;
    expect(error).toMatchObject({ code: 'UNAVAILABLE', message: 'The object store is unavailable; try again shortly' });
    expect(error.cause).toBe(store);
    const down = pgError('ECONNREFUSED', 'connect ECONNREFUSED 10.1.2.3:5432');
    expect(asAppError(down)).toMatchObject({ code: 'UNAVAILABLE', message: expect.not.stringMatching(/10\.1/) });
    expect(asAppError(down)!.cause).toBe(down);
  });

  it('passes AppErrors through and leaves bugs alone', () => {
    const own = new AppError('CONFLICT', 'taken');
    expect(asAppError(own)).toBe(own);
    expect(asAppError(new TypeError('x is undefined'))).toBeUndefined();
    expect(asAppError(pgError('42P01', 'relation "nothing" does not exist'))).toBeUndefined();
  });
});
