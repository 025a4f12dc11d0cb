import { describe, expect, it } from '@jest/globals';
import { thrown } from '../test/support/thrown';
import { compact, jsonObject, optionalJsonObject, without, withTypes } from './body';

describe('legacy JSON bodies', () => {
  it('jsonObject takes an object and refuses a missing body, null, an array or a scalar, naming what it is', () => {
    expect(jsonObject({ a: 1 })).toEqual({ a: 1 });
    expect(thrown(() => jsonObject(undefined))).toMatchObject({
      code: 'INVALID',
      message: 'Request body is required and must be a JSON object',
    });
    for (const body of [null, [], 'text', 3])
      expect(thrown(() => jsonObject(body, 'Permission set'))).toMatchObject({
        code: 'INVALID',
        message: 'Permission set must be a JSON object',
      });
  });

  it('optionalJsonObject reads no body as an empty object, and refuses what is not an object', () => {
    expect(optionalJsonObject(undefined)).toEqual({});
    expect(optionalJsonObject({ name: 'x' })).toEqual({ name: 'x' });
    expect(thrown(() => optionalJsonObject([]))).toMatchObject({ code: 'INVALID' });
  });

  it('without drops the named keys only', () => {
    expect(without({ id: 'x', name: 'n', createdTime: 't' }, ['id', 'createdTime'])).toEqual({ name: 'n' });
  });

  it('compact drops null, undefined and empty lists, as the legacy services serialise, and keeps false, 0 and ""', () => {
    expect(compact({ a: null, b: undefined, c: [], d: false, e: 0, f: '', g: ['x'], emailVerified: false })).toEqual({
      d: false,
      e: 0,
      f: '',
      g: ['x'],
      emailVerified: false,
    });
  });

  it('withTypes refuses a field of the wrong JSON type naming it, and leaves null and absent fields alone', () => {
    const types = { username: 'string', emails: 'strings', emailVerified: 'boolean' } as const;
    const body = { username: 'a@example.org', emails: ['a@example.org'], emailVerified: true };
    expect(withTypes(body, types)).toBe(body);
    expect(withTypes({ username: null }, types)).toEqual({ username: null });
    // GraphQL would coerce a lone value into a one-item list; the legacy API answers 400.
    expect(thrown(() => withTypes({ emails: 'a@example.org' }, types))).toMatchObject({
      code: 'INVALID',
      message: '"emails" must be a list of strings',
      details: { field: 'emails' },
    });
    expect(thrown(() => withTypes({ emails: ['a', 1] }, types))).toMatchObject({ details: { field: 'emails' } });
    expect(thrown(() => withTypes({ emailVerified: 'yes' }, types))).toMatchObject({
      message: '"emailVerified" must be a boolean',
    });
    expect(thrown(() => withTypes({ username: 7 }, types))).toMatchObject({ message: '"username" must be a string' });
  });
});
