import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';

/**
 * Instances remember the AGPs they computed (AGP_CACHE_ENTRIES) and answer one again only while
 * the readings are unchanged: a change made through another instance shows in the next read, and
 * access is decided on every read.
 */
let first: TestApp;
let second: TestApp;
let patient: TestAccount;
let viewer: TestAccount;

const FIVE_MINUTES = 5 * 60_000;
const NEWEST = Math.floor((Date.now() - 3_600_000) / FIVE_MINUTES) * FIVE_MINUTES;

const readings = (count: number, newest: number) =>
  Array.from({ length: count }, (_, index) => ({
    type: 'cbg',
    time: new Date(newest - index * FIVE_MINUTES).toISOString(),
    value: 100 + index,
    units: 'mg/dL',
  }));

async function openDataset(app: TestApp): Promise<string> {
  const opened = await call(app.url, `/v1/users/${patient.userid}/datasets`, {
    token: patient.token,
    json: { dataSetType: 'continuous', deduplicator: { name: 'org.tidepool.deduplicator.dataset.drop.hash' } },
  });
  expect(opened.status).toBe(201);
  return opened.body.data.id as string;
}

async function upload(app: TestApp, datasetId: string, records: object[]): Promise<void> {
  const reply = await call(app.url, `/v1/datasets/${datasetId}/data`, {
    method: 'POST',
    token: patient.token,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
  expect(reply.status).toBe(200);
}

const agp = async (app: TestApp, token: string) =>
  call(app.url, `/v1/patients/${patient.userid}/agp?period=7d`, { token });

beforeAll(async () => {
  first = await startTestApp();
  // Behind the same public URL, as a load balancer would have it: the same issuer for tokens.
  second = await startTestApp({ DATABASE_URL: first.database.url, PUBLIC_URL: first.url });
  patient = await signUp(first, 'patient');
  viewer = await signUp(first, 'viewer');
  const granted = await call(first.url, `/access/${patient.userid}/${viewer.userid}`, {
    token: patient.token,
    json: { view: {} },
  });
  expect(granted.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
});

describe('remembered AGPs', () => {
  it('answer a change made through another instance at the next read', async () => {
    const datasetId = await openDataset(first);
    await upload(first, datasetId, readings(48, NEWEST - FIVE_MINUTES));
    const before = await agp(first, viewer.token);
    expect(before.status).toBe(200);
    expect(before.body.readings).toBe(48);
    expect((await agp(first, viewer.token)).body).toEqual(before.body);

    await upload(second, datasetId, readings(1, NEWEST));
    const after = await agp(first, viewer.token);
    expect(after.body.readings).toBe(49);

    const deleted = await call(second.url, `/v1/datasets/${datasetId}`, { method: 'DELETE', token: patient.token });
    expect(deleted.status).toBe(204);
    const emptied = await agp(first, viewer.token);
    expect(emptied.body).toMatchObject({ readings: 0, from: null, to: null });
  });

  it('are answered only to callers allowed to read them, decided at each read', async () => {
    const datasetId = await openDataset(first);
    await upload(first, datasetId, readings(12, NEWEST));
    expect((await agp(first, viewer.token)).status).toBe(200);
    const revoked = await call(second.url, `/access/${patient.userid}/${viewer.userid}`, {
      token: patient.token,
      json: {},
    });
    expect(revoked.status).toBe(200);
    expect((await agp(first, viewer.token)).status).toBe(403);
    expect((await agp(first, patient.token)).body.readings).toBe(12);
  });
});
