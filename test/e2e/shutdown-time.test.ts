import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { LEFT_BEHIND } from '../../src/infra/shutdown';
import { signUp } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { liveClient, type LiveClient } from '../support/live';

/** A stop with nothing stuck; the bug this guards against took the whole SHUTDOWN_TIMEOUT_MS (10 s). */
const PROMPT_STOP_MS = 2_000;

const SUMMARY_UPDATES = `subscription ($userId: ID!) {
  glucoseSummaryUpdated(userId: $userId) { glucoseSummary(period: ONE_DAY) { cgm { dates { lastData } } } }
}`;

let app: TestApp;
const lines: string[] = [];
beforeAll(async () => {
  app = await startTestApp({}, { logTo: (line) => lines.push(line) });
});
afterAll(async () => {
  await app?.stop();
});

/** Answered requests on `agent`, whose sockets then stay open and idle (keep-alive). */
async function keepAliveRequests(agent: http.Agent, count: number): Promise<void> {
  const get = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(`${app.url}/healthz`, { agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  await Promise.all(Array.from({ length: count }, get));
}

/** A subscription the server has acknowledged. */
async function openSubscription(token: string, userId: string): Promise<LiveClient> {
  const live = liveClient(app.url, token);
  const connected = new Promise<void>((resolve) => live.client.on('connected', () => resolve()));
  live.subscribe(SUMMARY_UPDATES, { userId });
  await connected;
  return live;
}

/** A transaction of the service whose database connection is cut while it is open: it fails, and its COMMIT/ROLLBACK with it. */
async function transactionCutMidway(): Promise<unknown> {
  return app.service.orm.em.fork().transactional(async (em) => {
    const [{ pid }] = await em.execute<{ pid: number }[]>('select pg_backend_pid() as pid');
    // Waits (up to 5 s) until the backend has gone.
    await app.database.query('select pg_terminate_backend($1, 5000)', [pid]);
    await em.execute('select 1');
  });
}

describe('stopping', () => {
  it('ends within moments, with keep-alive connections, a subscription and a connection lost mid-transaction', async () => {
    const alice = await signUp(app);
    const agent = new http.Agent({ keepAlive: true });
    const live = await openSubscription(alice.token, alice.userid);
    try {
      await keepAliveRequests(agent, 4);
      await expect(transactionCutMidway()).rejects.toThrow();

      const started = Date.now();
      await app.service.close();
      const took = Date.now() - started;

      expect(lines.filter((line) => JSON.parse(line).msg.startsWith(LEFT_BEHIND))).toEqual([]);
      expect(took).toBeLessThan(PROMPT_STOP_MS);
      expect((await live.closed).code).toBe(1001);
    } finally {
      agent.destroy();
      await live.dispose();
    }
  });
});
