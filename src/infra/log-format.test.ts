import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../config';
import { createLogger } from './logger';

const PRODUCTION = { NODE_ENV: 'production', SMTP_URL: 'smtp://mail.example.org', MAIL_FROM: 'Islet <a@example.org>' };

function linesOf(format: 'json' | 'pretty', log: (logger: ReturnType<typeof createLogger>) => void): string[] {
  const lines: string[] = [];
  log(createLogger('info', { format, destination: { write: (line: string) => void lines.push(line) } }));
  return lines;
}

describe('LOG_FORMAT', () => {
  it('is JSON in production and pretty elsewhere unless set, and refuses other formats', () => {
    expect(loadConfig(PRODUCTION).logFormat).toBe('json');
    expect(loadConfig({}).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ ...PRODUCTION, LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'text' })).toThrow(/LOG_FORMAT must be one of json, pretty/);
  });

  it('json: one JSON object a line', () => {
    const [line] = linesOf('json', (logger) => logger.info({ userId: 'abc' }, 'signed in'));
    expect(JSON.parse(line!)).toMatchObject({ level: 'info', msg: 'signed in', userId: 'abc' });
  });

  it('pretty: time, level, message and fields on one line, no JSON; an error’s stack below it', () => {
    const [info, failure] = linesOf('pretty', (logger) => {
      logger.info({ userId: 'abc', path: '/v1/x y' }, 'signed in');
      logger.error({ err: new Error('boom') }, 'request failed');
    });
    expect(info).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  signed in userId=abc path="\/v1\/x y"\n$/);
    expect(() => JSON.parse(info!)).toThrow();
    expect(failure).toMatch(/^\d\d:\d\d:\d\d\.\d{3} ERROR request failed\n {4}Error: boom\n\s+at /);
  });

  it('pretty: tokens in paths stay redacted', () => {
    const [line] = linesOf('pretty', (logger) => logger.info({ path: `/auth/token/eyJhbGciOi.eyJzdWIi.c2ln` }, 'x'));
    expect(line).toContain('path=/auth/token/[redacted]');
  });
});
