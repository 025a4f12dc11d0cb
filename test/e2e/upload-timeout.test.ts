import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from '../support/app';
import { rawRequest } from '../support/content';
import { eventually } from '../support/eventually';
import { serverRequestTimeoutMs } from '../../src/service';
import { loadConfig } from '../../src/config';

/**
 * UPLOAD_TIMEOUT_SECONDS governs an upload from its first byte to what it leaves behind: Node's
 * own request timeout (300 s) no longer cuts an upload short, a stalled upload ends after its own
 * timeout, and the temporary files of uploads a killed process left are removed once they are
 * older than the timeout.
 */

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

describe('the upload timeout', () => {
  it('lets Node give a request as long as an upload may take, beyond its own 300 s', () => {
    expect(serverRequestTimeoutMs(loadConfig({ UPLOAD_TIMEOUT_SECONDS: '3600' }))).toBeGreaterThan(3_600_000);
  });

  it('ends an upload whose body stops arriving once UPLOAD_TIMEOUT_SECONDS (and its grace) have passed: 408', async () => {
    app = await startTestApp({ UPLOAD_TIMEOUT_SECONDS: '1' });
    // A GraphQL upload stalled in its `operations` part, before any file: only the request's own
    // deadline ends it (without it, Node's 300 s).
    const stalled = Buffer.from('--xx\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{"query":');
    const answer = await rawRequest(
      app,
      '/graphql',
      [
        ['content-type', 'multipart/form-data; boundary=xx'],
        ['apollo-require-preflight', 'true'],
      ],
      stalled,
      { contentLength: stalled.length + 100 },
    );
    expect(answer).toMatchObject({ status: 408 });
  });

  it('removes, once started again after a kill, the temporary files of uploads older than the timeout', async () => {
    app = await startTestApp();
    const incoming = path.join(app.config.dataDir, 'objects', 'incoming');
    await fsp.mkdir(incoming, { recursive: true });
    // What `kill -9` leaves of two uploads in flight: one began two hours ago, one just now.
    const killed = new Date(Date.now() - 2 * 3_600_000);
    await fsp.writeFile(path.join(incoming, 'began-two-hours-ago'), 'half an upload');
    await fsp.utimes(path.join(incoming, 'began-two-hours-ago'), killed, killed);
    await fsp.writeFile(path.join(incoming, 'began-just-now'), 'half an upload');

    await app.restart();

    await eventually(async () => !fs.existsSync(path.join(incoming, 'began-two-hours-ago')), 'the old file is removed');
    expect(fs.readdirSync(incoming)).toEqual(['began-just-now']);
  });
});
