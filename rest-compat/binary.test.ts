import { describe, expect, it } from '@jest/globals';
import { thrown } from '../test/support/thrown';
import {
  contentHeaders,
  dateTimeHeader,
  dateTimeParameter,
  digestHeader,
  integerParameter,
  listParameter,
  oneParameter,
} from './binary';

const MD5 = '1B2M2Y8AsgTpgAmY7PhCfg==';

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
});

describe('binary headers', () => {
  it('digestHeader: md5=<base64> in any case; missing only where not required', () => {
    expect(digestHeader({ digest: `md5=${MD5}` }, { required: true })).toBe(MD5);
    expect(digestHeader({ digest: `MD5=${MD5}` }, { required: true })).toBe(MD5);
    expect(digestHeader({}, { required: false })).toBeUndefined();
    expect(thrown(() => digestHeader({}, { required: true }))).toMatchObject({
      message: 'header "Digest" is missing; send Digest: md5=<base64 MD5 of the body>',
      details: { field: 'Digest' },
    });
  });

  it('digestHeader refuses a repeated header, another algorithm and a value that is not 16 bytes', () => {
    const refused = (digest: string) => thrown(() => digestHeader({ digest }, { required: true }));
    expect(refused(`md5=${MD5}, md5=${MD5}`)).toMatchObject({
      message: 'header "Digest" is invalid: it was sent more than once or lists several digests',
    });
    expect(refused(`sha-256=${MD5}`)).toMatchObject({
      message: `header "Digest" is invalid: expected md5=<base64 MD5>, got "sha-256=${MD5}"`,
    });
    expect(refused('md5=not-base64')).toMatchObject({
      message: 'header "Digest" is invalid: the md5 value must be the base64 of 16 bytes (24 characters)',
    });
  });

  it('dateTimeHeader: required, an RFC 3339 date-time, answered in UTC', () => {
    const name = 'X-Logs-Start-At-Time';
    expect(dateTimeHeader({ 'x-logs-start-at-time': '2024-03-01T10:00:00Z' }, name)).toBe('2024-03-01T10:00:00.000Z');
    expect(thrown(() => dateTimeHeader({}, name))).toMatchObject({ message: `header "${name}" is missing` });
    expect(thrown(() => dateTimeHeader({ 'x-logs-start-at-time': 'soon' }, name))).toMatchObject({
      message: `header "${name}" is invalid: "soon" is not an RFC 3339 date-time such as 2024-01-02T03:04:05Z`,
      details: { field: name },
    });
  });

  it('contentHeaders: what a download answers besides its bytes', () => {
    expect(contentHeaders({ mediaType: 'image/png', size: 5, digestMD5: MD5 })).toEqual({
      'Content-Type': 'image/png',
      'Content-Length': '5',
      Digest: `MD5=${MD5}`,
    });
  });
});
