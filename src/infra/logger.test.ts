import { describe, expect, it } from '@jest/globals';
import { createLogger, redactTokens } from './logger';

/** The lines a logger at `info` writes, parsed. */
function captured() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', { destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  return { logger, lines };
}

const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIwMTIzNDU2Nzg5In0.c2lnbmF0dXJlLW9mLWEtdG9rZW4tdGhhdC1pcy1sb25nLWVub3VnaA';
const OPAQUE = 'Gx2bO1lqYk3m5JtYb0v1QwZ8e6aHnRr2sT4uVwXyZ_A'; // 43 characters, as oidc-provider's

describe('the service log', () => {
  it('writes [redacted] for a token in any line’s path or url, leaving the caller’s object as it was', () => {
    const { logger, lines } = captured();
    const fields = { path: `/auth/token/${JWT}`, status: 200 };
    logger.info(fields, 'request');
    logger.warn({ url: `https://islet.example.org/realms/dev1/x/${OPAQUE}/y` }, 'dependency unavailable');
    expect(lines.map(({ path, url }) => path ?? url)).toEqual([
      '/auth/token/[redacted]',
      'https://islet.example.org/realms/dev1/x/[redacted]/y',
    ]);
    expect(fields.path).toBe(`/auth/token/${JWT}`);
  });

  it('keeps the ids a path names: user, clinic, blob ids and UUIDs', () => {
    const path =
      '/v1/clinics/0123456789abcdef01234567/patients/0123456789/blobs/0123456789abcdef0123456789abcdef/01234567-89ab-cdef-0123-456789abcdef';
    expect(redactTokens(path)).toBe(path);
  });

  it('redacts a confirmation key by where it stands, though it is as short as an object id', () => {
    const key = 'Sds2PHMALZrmt-_JyD5mIjLkZruJldiM';
    expect(redactTokens(`/confirm/accept/signup/${key}`)).toBe('/confirm/accept/signup/[redacted]');
  });

  it('redacts tokens of every shape it knows, wherever they stand in the text', () => {
    expect(redactTokens(`${JWT}/${OPAQUE}?x=${JWT}`)).toBe('[redacted]/[redacted]?x=[redacted]');
    expect(redactTokens('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.')).toBe('[redacted]');
  });
});
