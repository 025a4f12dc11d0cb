import { describe, expect, it } from '@jest/globals';
import { thrown } from '../test/support/thrown';
import { contentHeaders, dateTimeHeader, digestHeader } from './binary';

const MD5 = '1B2M2Y8AsgTpgAmY7PhCfg==';

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
