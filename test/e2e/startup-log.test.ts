import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { announceStart } from '../../src/main';
import { createLogger } from '../../src/infra/logger';
import type { LogFormat } from '../../src/infra/log-format';
import { startTestApp, type TestApp } from '../support/app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

/** What the service writes on stdout when it has started, in `format`, at LOG_LEVEL=warn. */
function startLines(format: LogFormat): string[] {
  const lines: string[] = [];
  const logger = createLogger('warn', { format, destination: { write: (line: string) => void lines.push(line) } });
  announceStart(logger, app.config, app.service);
  return lines;
}

describe('the start-up banner', () => {
  it('is JSON lines where the log is JSON', () => {
    const lines = startLines('json').map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ level: 'info', msg: expect.stringContaining(`Islet listening on ${app.url}`) });
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Development client/)]),
    );
  });

  it('is pretty lines, none of them JSON, where the log is pretty', () => {
    const lines = startLines('pretty');
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  Islet listening on /);
    for (const line of lines) expect(() => JSON.parse(line)).toThrow();
  });
});
