import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import pg from 'pg';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';

/**
 * The bound on a caller's exports streaming at once (EXPORTS_PER_CALLER, 2 by default): a third
 * is refused 429 while two are read slowly, and a place comes back when its client leaves.
 */
let app: TestApp;
let owner: TestAccount;

/** Enough readings that a JSON export (~20 MiB) outlasts what loopback sockets buffer for a reader that reads nothing. */
const READINGS = 50_000;
const DATASET = 'abcdef0123456789abcdef0123456789';

async function seed(userId: string): Promise<void> {
  const client = new pg.Client({ connectionString: app.database.url });
  await client.connect();
  try {
    await client.query(
      `insert into datasets (id, user_id, data_set_type, state, deduplicator, details, created_user_id, created_time)
       values ($2, $1, 'continuous', 'open', 'org.tidepool.deduplicator.dataset.delete.origin', '{}', $1, now())`,
      [userId, DATASET],
    );
    await client.query(
      `with shape as (
         insert into glucose_reading_shapes (user_id, dataset_id, digest, type, minutes, fields, first_time, last_time)
         values ($1, $2, md5('seed')::uuid, 'cbg', 5, '{"sampleInterval": 300000}',
                 timestamptz '2024-01-01Z', timestamptz '2024-01-01Z' + $3::int * interval '5 minutes')
         returning id)
       insert into glucose_readings (user_id, time, id, shape, value, active, created_time)
       select $1, timestamptz '2024-01-01Z' + r * interval '5 minutes', md5('limit-' || r)::uuid, (select id from shape),
              5.5, true, now()
         from generate_series(0, $3::int - 1) as r`,
      [userId, DATASET, READINGS],
    );
  } finally {
    await client.end();
  }
}

/** An export whose client takes the headers and then reads nothing, until `leave` drops the connection. */
function slowExport(): Promise<{ status: number; leave: () => void }> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${app.url}/export/${owner.userid}?format=json`, {
      headers: { 'x-tidepool-session-token': owner.token },
    });
    request.on('response', (response) => {
      response.pause();
      resolve({ status: response.statusCode!, leave: () => request.destroy() });
    });
    request.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
  });
}

/** The status of a fresh export (its body left unread). */
const exportStatus = async () => {
  const response = await fetch(`${app.url}/export/${owner.userid}?format=csv`, {
    headers: { 'x-tidepool-session-token': owner.token },
  });
  await response.body?.cancel();
  return response.status;
};

beforeAll(async () => {
  app = await startTestApp();
  owner = await signUp(app, 'owner');
  await seed(owner.userid);
}, 120_000);

afterAll(() => app.stop());

describe('exports in flight per caller', () => {
  it('refuses a third export while two stream, and gives a place back when a client leaves', async () => {
    const [first, second] = [await slowExport(), await slowExport()];
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await fetch(`${app.url}/export/${owner.userid}?format=xlsx`, {
      headers: { 'x-tidepool-session-token': owner.token },
    });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    expect(JSON.stringify(await third.json())).toContain('You have 2 exports in progress');
    first.leave();
    // The server sees the client gone, closes the export's stream and so gives its place back.
    let retried = 0;
    await eventually(async () => (retried = await exportStatus()) !== 429, 'a left export gives its place back');
    expect(retried).toBe(200);
    second.leave();
  }, 60_000);
});
