import { describe, expect, it } from '@jest/globals';
import { thrown } from '../test/support/thrown';
import {
  booleanParameter,
  dateTimeParameter,
  integerParameter,
  listParameter,
  oneParameter,
  parseBoolParameter,
} from './query-parameters';

describe('query parameters', () => {
  it('oneParameter: absent is undefined, once is its value, repeated is refused naming it', () => {
    expect(oneParameter({}, 'sort')).toBeUndefined();
    expect(oneParameter({ sort: '+fullName' }, 'sort')).toBe('+fullName');
    expect(thrown(() => oneParameter({ sort: ['a', 'b'] }, 'sort'))).toMatchObject({
      code: 'INVALID',
      message: 'query parameter "sort" must be given once',
      details: { field: 'sort' },
    });
  });

  it('listParameter: repeated or comma-separated values, trimmed; an empty value is refused', () => {
    expect(listParameter({}, 'tags')).toBeUndefined();
    expect(listParameter({ tags: 'a, b' }, 'tags')).toEqual(['a', 'b']);
    expect(listParameter({ tags: ['a', 'b,c'] }, 'tags')).toEqual(['a', 'b', 'c']);
    for (const tags of ['', 'a,,b', 'a, ', ['a', { nested: 'x' }]])
      expect(thrown(() => listParameter({ tags }, 'tags'))).toMatchObject({
        message: 'query parameter "tags" has an empty value',
        details: { field: 'tags' },
      });
  });

  it('integerParameter: a whole number of up to 9 digits, or refused', () => {
    expect(integerParameter({}, 'limit')).toBeUndefined();
    expect(integerParameter({ limit: '25' }, 'limit')).toBe(25);
    expect(integerParameter({ offset: '-1' }, 'offset')).toBe(-1);
    for (const limit of ['2.5', 'ten', '1234567890', ['1', '2']])
      expect(thrown(() => integerParameter({ limit }, 'limit'))).toMatchObject({
        message: 'query parameter "limit" must be an integer',
      });
  });

  it('dateTimeParameter: required, once, as an RFC 3339 date-time, answered in UTC', () => {
    expect(dateTimeParameter({ startDate: '2024-03-01T10:00:00+01:00' }, 'startDate')).toBe('2024-03-01T09:00:00.000Z');
    expect(thrown(() => dateTimeParameter({}, 'startDate'))).toMatchObject({
      message: 'query parameter "startDate" is required',
    });
    expect(thrown(() => dateTimeParameter({ startDate: ['a', 'b'] }, 'startDate'))).toMatchObject({
      message: 'query parameter "startDate" must be given once',
    });
    expect(thrown(() => dateTimeParameter({ startDate: 'yesterday' }, 'startDate'))).toMatchObject({
      code: 'INVALID',
      details: { field: 'startDate' },
    });
  });

  it.each([
    ['booleanParameter', booleanParameter, ['true'], ['false'], ['1', 'True', 'yes']],
    [
      'parseBoolParameter',
      parseBoolParameter,
      ['1', 't', 'T', 'TRUE', 'true', 'True'],
      ['0', 'f', 'F', 'FALSE', 'false', 'False'],
      ['yes', 'tRuE', ''],
    ],
  ] as const)(
    '%s: its true and false forms, absent is undefined, others refused naming it',
    (_name, read, yes, no, refused) => {
      expect(read({}, 'flag')).toBeUndefined();
      for (const value of yes) expect(read({ flag: value }, 'flag')).toBe(true);
      for (const value of no) expect(read({ flag: value }, 'flag')).toBe(false);
      for (const value of refused)
        expect(thrown(() => read({ flag: value }, 'flag'))).toMatchObject({
          message: 'query parameter "flag" must be true or false',
          details: { field: 'flag' },
        });
    },
  );
});
