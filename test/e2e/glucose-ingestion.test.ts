import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { call, graphql } from '../support/http';

let app: TestApp;
let owner: TestAccount;
let viewer: TestAccount;
let uploader: TestAccount;
let outsider: TestAccount;

const UPLOADER_DATASET = {
  type: 'upload',
  client: { name: 'org.tidepool.uploader', version: '2.60.0', private: { os: 'mac' } },
  deduplicator: { name: 'org.tidepool.deduplicator.dataset.drop.hash' },
  deviceId: 'DexG6-123',
  deviceManufacturers: ['Dexcom'],
  deviceModel: 'G6',
  deviceTags: ['cgm'],
  time: '2024-03-02T08:00:00Z',
  computerTime: '2024-03-02T09:00:00',
  timezone: 'Europe/Paris',
  timezoneOffset: 60,
  version: '2.60.0',
};

const cbg = (time: string, mgdl: number, extra: object = {}) => ({
  type: 'cbg',
  time,
  value: mgdl,
  units: 'mg/dL',
  sampleInterval: 300000,
  deviceId: 'DexG6-123',
  ...extra,
});

function postData(datasetId: string, records: unknown, token = owner.token) {
  return call(app.url, `/v1/datasets/${datasetId}/data`, {
    method: 'POST',
    token,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(records),
  });
}

async function openDataset(body: object, token: string | undefined) {
  return call(app.url, `/v1/users/${owner.userid}/datasets`, { token, json: body });
}

const readBack = (token: string | undefined, query = '') => call(app.url, `/data/${owner.userid}${query}`, { token });

beforeAll(async () => {
  app = await startTestApp();
  [owner, viewer, uploader, outsider] = await Promise.all(
    ['owner', 'viewer', 'uploader', 'outsider'].map((name) => signUp(app, name)),
  );
  for (const [account, permissions] of [
    [viewer, { view: {} }],
    [uploader, { upload: {} }],
  ] as const)
    await call(app.url, `/access/${owner.userid}/${account.userid}`, { token: owner.token, json: permissions });
});
afterAll(async () => {
  await app?.stop();
});

describe('the uploader’s flow: open, add, close, read back', () => {
  let datasetId: string;

  it('answers what uploaders ask first: versions, the server’s time and the account’s data sources', async () => {
    const info = await call(app.url, '/info');
    expect(info.status).toBe(200);
    expect(info.body).toEqual({ versions: { schema: 3, uploaderMinimum: '0.333.0' } });
    const before = Date.now();
    const time = await call(app.url, '/v1/time');
    expect(Math.abs(Date.parse(time.body.data.time) - before)).toBeLessThan(5000);
    expect((await call(app.url, `/v1/users/${owner.userid}/data_sources`, { token: owner.token })).body).toEqual([]);
    expect((await call(app.url, `/v1/users/${owner.userid}/data_sources`, { token: viewer.token })).status).toBe(403);
    expect((await call(app.url, `/v1/users/${owner.userid}/data_sources`)).status).toBe(401);
  });

  it('opens a dataset and answers Tidepool’s dataset with {data, meta}', async () => {
    const reply = await openDataset(UPLOADER_DATASET, owner.token);
    expect(reply.status).toBe(201);
    const { data } = reply.body;
    datasetId = data.id;
    expect(data).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      uploadId: data.id,
      userId: owner.userid,
      type: 'upload',
      dataSetType: 'normal',
      dataState: 'open',
      state: 'open',
      deduplicator: { name: 'org.tidepool.deduplicator.dataset.drop.hash' },
      client: { name: 'org.tidepool.uploader', version: '2.60.0' },
      deviceId: 'DexG6-123',
      deviceTags: ['cgm'],
      timezone: 'Europe/Paris',
      timezoneOffset: 60,
      createdUserId: owner.userid,
    });
    expect(reply.body.meta).toEqual({});
  });

  it('stores records in mmol/L, counts a duplicate once and keeps them out of reads until the dataset closes', async () => {
    const records = [
      cbg('2024-03-02T07:00:00Z', 140),
      cbg('2024-03-02T07:05:00Z', 54),
      cbg('2024-03-02T07:00:00Z', 140),
    ];
    const added = await postData(datasetId, records);
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ data: [], meta: {} });
    expect((await postData(datasetId, [records[0]])).status).toBe(200);
    expect((await readBack(owner.token)).body).toEqual([]);

    const closed = await call(app.url, `/v1/datasets/${datasetId}`, {
      method: 'PUT',
      token: owner.token,
      json: { dataState: 'closed' },
    });
    expect(closed.status).toBe(200);
    expect(closed.body.data).toMatchObject({ id: datasetId, dataState: 'closed', state: 'closed' });

    const read = await readBack(owner.token);
    expect(read.status).toBe(200);
    expect(read.body).toEqual([
      expect.objectContaining({
        type: 'cbg',
        time: '2024-03-02T07:00:00.000Z',
        value: 7.77105,
        units: 'mmol/L',
        uploadId: datasetId,
        sampleInterval: 300000,
        deviceId: 'DexG6-123',
        id: expect.stringMatching(/^[0-9a-z]{32}$/),
      }),
      expect.objectContaining({ time: '2024-03-02T07:05:00.000Z', value: 2.9974 }),
    ]);
  });

  it('answers 409 for records sent to a closed dataset, and for closing it again', async () => {
    const more = await postData(datasetId, [cbg('2024-03-02T07:10:00Z', 120)]);
    expect(more.status).toBe(409);
    const again = await call(app.url, `/v1/datasets/${datasetId}`, { method: 'PUT', token: owner.token, json: {} });
    expect(again.status).toBe(409);
  });

  it('reads back by type and time range, and lists the datasets', async () => {
    const ranged = await readBack(owner.token, '?type=cbg&startDate=2024-03-02T07:01:00Z&endDate=2024-03-02T08:00:00Z');
    expect(ranged.body.map((record: { time: string }) => record.time)).toEqual(['2024-03-02T07:05:00.000Z']);
    expect((await readBack(owner.token, '?type=smbg')).body).toEqual([]);
    const list = await call(app.url, `/v1/users/${owner.userid}/datasets`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.map((dataset: { id: string }) => dataset.id)).toContain(datasetId);
    expect((await call(app.url, `/v1/users/${owner.userid}/data_sets`, { token: viewer.token })).status).toBe(200);
  });
});

describe('what an upload refuses, storing nothing', () => {
  let datasetId: string;
  beforeAll(async () => {
    datasetId = (await openDataset({ dataSetType: 'continuous' }, owner.token)).body.data.id;
  });

  it('names the index and field of the first invalid record and stores none of the request', async () => {
    const reply = await postData(datasetId, [cbg('2024-03-03T00:00:00Z', 100), cbg('2024-03-03T00:05:00Z', 1200)]);
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toMatch(/Record 1: value/);
    expect((await readBack(owner.token, '?startDate=2024-03-03T00:00:00Z')).body).toEqual([]);
  });

  it.each([
    ['not JSON', '{', 400],
    ['an object instead of an array', '{"type":"cbg"}', 400],
    [
      'more than 1,000 records',
      JSON.stringify(
        Array.from({ length: 1001 }, (_, i) => cbg(new Date(Date.UTC(2024, 2, 4, 0, i)).toISOString(), 100)),
      ),
      413,
    ],
  ])('refuses %s', async (_what, body, status) => {
    const reply = await call(app.url, `/v1/datasets/${datasetId}/data`, {
      method: 'POST',
      token: owner.token,
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(reply.status).toBe(status);
    expect((await readBack(owner.token, '?startDate=2024-03-03T00:00:00Z')).body).toEqual([]);
  });

  it('refuses unknown dataset fields and values, naming them', async () => {
    for (const [body, field] of [
      [{ dataSetType: 'weekly' }, 'dataSetType'],
      [{ deduplicator: { name: 'org.tidepool.deduplicator.magic' } }, 'deduplicator'],
      [{ deviceTags: ['toaster'] }, 'deviceTags'],
      [{ colour: 'blue' }, 'colour'],
    ] as const) {
      const reply = await openDataset(body, owner.token);
      expect({ field, status: reply.status }).toEqual({ field, status: 400 });
      expect(reply.body.reason).toContain(field);
    }
  });

  it('makes continuous records count at once; only a server closes a continuous dataset', async () => {
    const added = await postData(datasetId, [cbg('2024-03-05T00:00:00Z', 100, { origin: { id: 'reading-1' } })]);
    expect(added.status).toBe(200);
    expect((await readBack(owner.token, '?startDate=2024-03-05T00:00:00Z')).body).toHaveLength(1);
    // The origin deduplicator replaces a record sent again with the same origin id.
    await postData(datasetId, [cbg('2024-03-05T00:00:00Z', 110, { origin: { id: 'reading-1' } })]);
    const replaced = (await readBack(owner.token, '?startDate=2024-03-05T00:00:00Z')).body;
    expect(replaced.map((record: { value: number }) => record.value)).toEqual([6.10582]);
    expect((await call(app.url, `/v1/datasets/${datasetId}`, { method: 'PUT', token: owner.token })).status).toBe(403);
    expect(
      (await call(app.url, `/v1/datasets/${datasetId}`, { method: 'PUT', token: await serverToken(app) })).status,
    ).toBe(200);
  });
});

describe('who may upload and read', () => {
  it('lets an uploader write and a viewer read, and no one else: `upload` alone reads nothing', async () => {
    expect((await openDataset(UPLOADER_DATASET, uploader.token)).status).toBe(201);
    expect((await openDataset(UPLOADER_DATASET, viewer.token)).status).toBe(403);
    expect((await openDataset(UPLOADER_DATASET, outsider.token)).status).toBe(403);
    expect((await openDataset(UPLOADER_DATASET, undefined)).status).toBe(401);
    expect((await readBack(viewer.token)).status).toBe(200);
    expect((await readBack(uploader.token)).status).toBe(403);
    expect((await readBack(outsider.token)).status).toBe(403);
    expect((await readBack(undefined)).status).toBe(401);
  });

  it('answers 404 for an unknown dataset and 400 for a malformed id', async () => {
    expect((await postData('0'.repeat(32), [])).status).toBe(404);
    expect((await postData('not-an-id', [])).status).toBe(400);
  });

  it('lets the opener delete its dataset, with its records', async () => {
    const opened = await openDataset({ dataSetType: 'continuous' }, uploader.token);
    await postData(opened.body.data.id, [cbg('2024-03-06T00:00:00Z', 100)], uploader.token);
    expect((await readBack(owner.token, '?startDate=2024-03-06T00:00:00Z')).body).toHaveLength(1);
    const deleted = await call(app.url, `/v1/datasets/${opened.body.data.id}`, {
      method: 'DELETE',
      token: viewer.token,
    });
    expect(deleted.status).toBe(403);
    expect(
      (await call(app.url, `/v1/datasets/${opened.body.data.id}`, { method: 'DELETE', token: uploader.token })).status,
    ).toBe(204);
    expect((await readBack(owner.token, '?startDate=2024-03-06T00:00:00Z')).body).toEqual([]);
  });
});

describe('deleting an account', () => {
  it('deletes its datasets, readings, summaries and their statistics with it', async () => {
    const leaving = await signUp(app, 'leaving');
    const opened = await call(app.url, `/v1/users/${leaving.userid}/datasets`, {
      token: leaving.token,
      json: { dataSetType: 'continuous' },
    });
    await postData(opened.body.data.id, [cbg(new Date(Date.now() - 3_600_000).toISOString(), 100)], leaving.token);
    const TABLES = [
      'glucose_readings',
      'glucose_reading_shapes',
      'glucose_buckets',
      'glucose_summaries',
      'glucose_period_stats',
      'datasets',
    ];
    const rows = async () =>
      Object.fromEntries(
        await Promise.all(
          TABLES.map(async (table) => [
            table,
            (
              await app.database.query(`select count(*)::int as count from ${table} where user_id = $1`, [
                leaving.userid,
              ])
            )[0]!.count,
          ]),
        ),
      );
    // The summary and its period statistics are written shortly after the upload.
    await eventually(async () => (await rows()).glucose_period_stats > 0, 'the summary statistics are written');
    const deleted = await call(app.url, `/auth/user/${leaving.userid}`, {
      method: 'DELETE',
      token: leaving.token,
      json: { password: leaving.password },
    });
    expect(deleted.status).toBe(204);
    expect(await rows()).toEqual(Object.fromEntries(TABLES.map((table) => [table, 0])));
  });
});

describe('glucose data through GraphQL', () => {
  it('pages a user’s readings over a time range and lists its datasets', async () => {
    const query = `query ($id: ID!) { user(id: $id) {
      glucoseReadings(filter: { from: "2024-03-02T00:00:00Z", to: "2024-03-02T23:59:59Z" }, first: 1) {
        totalCount nodes { type value time } pageInfo { hasNextPage endCursor } }
      datasets(first: 10) { totalCount nodes { id state dataSetType client { name } } } } }`;
    const reply = await graphql(app.url, query, { id: owner.userid }, owner.token);
    const user = reply.body.data.user;
    expect(user.glucoseReadings).toMatchObject({
      totalCount: 2,
      nodes: [{ type: 'CBG', value: 7.77105, time: '2024-03-02T07:00:00.000Z' }],
      pageInfo: { hasNextPage: true },
    });
    expect(user.datasets.nodes).toContainEqual(
      expect.objectContaining({ state: 'CLOSED', dataSetType: 'NORMAL', client: { name: 'org.tidepool.uploader' } }),
    );
  });

  it('answers NOT_FOUND for an unknown dataset', async () => {
    const reply = await graphql(
      app.url,
      'query ($id: ID!) { dataset(id: $id) { id } }',
      { id: '0'.repeat(32) },
      outsider.token,
    );
    expect(reply.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
