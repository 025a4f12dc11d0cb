import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { call, graphql } from '../support/http';
import { cbg } from '../support/glucose';
import { liveClient, liveSubscriptions, type LiveClient } from '../support/live';

/**
 * issue 27, item 7: readings are bounded per account and hour of data, and the summary rebuild a
 * one-record upload can force (at the start of a full 60-day window) cannot hold up another
 * account's summary.
 */
let app: TestApp;
const clients: LiveClient[] = [];

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await app?.stop();
});

const HOUR = 3_600_000;
const NEWEST = Math.floor(Date.now() / HOUR) * HOUR - HOUR;

async function continuousDataset(account: TestAccount): Promise<string> {
  const opened = await call(app.url, `/v1/users/${account.userid}/datasets`, {
    token: account.token,
    json: { dataSetType: 'continuous' },
  });
  expect(opened.status).toBe(201);
  return opened.body.data.id;
}

const upload = (account: TestAccount, datasetId: string, records: object[]) =>
  call(app.url, `/v1/datasets/${datasetId}/data`, { token: account.token, json: records });

const SUMMARY_DATES = `{ me { glucoseSummary(period: THIRTY_DAYS) { cgm { dates { firstData outdatedSince } } } } }`;
const summaryDates = async (account: TestAccount) =>
  (await graphql(app.url, SUMMARY_DATES, {}, account.token)).body.data.me.glucoseSummary?.cgm?.dates ?? null;

describe('readings per account and hour of data', () => {
  it('refuses an upload that would put more than 240 readings in one hour, naming the limit and the hour', async () => {
    const account = await signUp(app, 'dense');
    const datasetId = await continuousDataset(account);
    const everyTenSeconds = (count: number, from = 0) =>
      Array.from({ length: count }, (_, index) => cbg(NEWEST + (from + index) * 10_000, 110));
    expect((await upload(account, datasetId, everyTenSeconds(200))).status).toBe(200);
    const refused = await upload(account, datasetId, everyTenSeconds(41, 200));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(
      `At most 240 glucose readings are kept per account and hour of data; with this upload the hour from ${new Date(NEWEST).toISOString()} would hold 241`,
    );
    expect((await upload(account, datasetId, everyTenSeconds(40, 200))).status).toBe(200);
  });
});

describe('a summary rebuild of a full window', () => {
  it('does not hold up another account: its summary is pushed within a second of its upload', async () => {
    // The attacker: 200,000 readings (200 an hour, under the bound) in one 60-day window,
    // written directly (200 uploads of 1,000 would only take longer), then counted once.
    const attacker = await signUp(app, 'attacker');
    const attackerDataset = await continuousDataset(attacker);
    await app.database.query(
      `with shape as (
         insert into glucose_reading_shapes (user_id, dataset_id, digest, type, minutes, fields, first_time, last_time)
         values ($1, $2, md5('seed')::uuid, 'cbg', 5, '{}', $3::timestamptz - interval '1000000 seconds', $3::timestamptz)
         returning id)
       insert into glucose_readings (user_id, time, id, shape, value, active, created_time)
       select $1, $3::timestamptz - n * interval '18 seconds', md5('r' || n)::uuid, (select id from shape),
              4 + (n % 90) / 10.0, true, now()
         from generate_series(1, 200000) as n`,
      [attacker.userid, attackerDataset, new Date(NEWEST)],
    );
    expect((await upload(attacker, attackerDataset, [cbg(NEWEST, 120)])).status).toBe(200);
    await eventually(
      async () => (await summaryDates(attacker))?.outdatedSince === null,
      'the attacker’s summary counts its readings',
      120_000,
    );

    const victim = await signUp(app, 'victim');
    const victimDataset = await continuousDataset(victim);
    const live = liveClient(app.url, victim.token);
    clients.push(live);
    const before = await liveSubscriptions(app.url);
    const updates = live.subscribe(
      `subscription ($userId: ID!) { glucoseSummaryUpdated(userId: $userId) { userId } }`,
      {
        userId: victim.userid,
      },
    );
    await eventually(async () => (await liveSubscriptions(app.url)) > before, 'the server follows the subscription');

    // The attack: one record at the start of the window, so the summary rebuilds every reading.
    const windowStart = NEWEST - 1000 * HOUR - 30 * 60_000;
    expect((await upload(attacker, attackerDataset, [cbg(windowStart, 120)])).status).toBe(200);
    expect((await upload(victim, victimDataset, [cbg(NEWEST, 100), cbg(NEWEST + 300_000, 110)])).status).toBe(200);
    // The deadline the issue sets: the victim's change is pushed within a second of its upload.
    const pushed = await Promise.race([
      updates.next(),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 1_000)),
    ]);
    expect(pushed?.data?.glucoseSummaryUpdated).toEqual({ userId: victim.userid });
    // It came before the rebuild ended, and the rebuild ends: the new record is the oldest one counted.
    expect((await summaryDates(attacker)).outdatedSince).not.toBeNull();
    await eventually(
      async () => (await summaryDates(attacker))?.outdatedSince === null,
      'the attacker’s summary is rebuilt',
      120_000,
    );
    expect((await summaryDates(attacker)).firstData).toBe(new Date(windowStart).toISOString());
    await updates.stop();
  }, 300_000);
});
