import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { uploadLog } from '../support/content';
import { call, graphql } from '../support/http';
import { liveClient, type LiveClient } from '../support/live';

/**
 * Reading an account's data (glucose data, datasets, summaries, device logs) takes `view` or
 * `custodian`, as Tidepool's platform checks `view` for reads: a grant of `upload` or `note`
 * alone reads nothing, directly or through a clinic.
 */
let app: TestApp;
let owner: TestAccount;
let viewer: TestAccount;
let uploader: TestAccount;
let noter: TestAccount;
let logId: string;
let datasetId: string;
const clients: LiveClient[] = [];

const WINDOW = { start: '2024-03-01T00:00:00Z', end: '2024-03-02T00:00:00Z' };
const WINDOW_QUERY = 'startAtTime=2024-02-01T00:00:00Z&endAtTime=2024-04-01T00:00:00Z';

beforeAll(async () => {
  app = await startTestApp();
  [owner, viewer, uploader, noter] = await Promise.all(
    ['owner', 'viewer', 'uploader', 'noter'].map((name) => signUp(app, name)),
  );
  for (const [grantee, permissions] of [
    [viewer, { view: {} }],
    [uploader, { upload: {} }],
    [noter, { note: {} }],
  ] as const)
    expect(
      (await call(app.url, `/access/${owner.userid}/${grantee.userid}`, { token: owner.token, json: permissions }))
        .status,
    ).toBe(200);
  logId = (await uploadLog(app, owner.userid, owner.token, WINDOW)).body.id;
  const opened = await call(app.url, `/v1/users/${owner.userid}/datasets`, {
    token: owner.token,
    json: { dataSetType: 'continuous' },
  });
  expect(opened.status).toBe(201);
  datasetId = opened.body.data.id;
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await app?.stop();
});

/** Each read, over REST and GraphQL, answering whether `token` was let in. */
const READS: [string, (token: string) => Promise<boolean>][] = [
  [
    'GET /data/{owner} (glucose data)',
    async (token) => (await call(app.url, `/data/${owner.userid}`, { token })).status === 200,
  ],
  ...['datasets', 'data_sets'].map((prefix): [string, (token: string) => Promise<boolean>] => [
    `GET /v1/users/{owner}/${prefix}`,
    async (token) => (await call(app.url, `/v1/users/${owner.userid}/${prefix}`, { token })).status === 200,
  ]),
  [
    'GET /v1/users/{owner}/device_logs',
    async (token) =>
      (await call(app.url, `/v1/users/${owner.userid}/device_logs?${WINDOW_QUERY}`, { token })).status === 200,
  ],
  [
    'GET /v1/device_logs/{log}',
    async (token) => (await call(app.url, `/v1/device_logs/${logId}`, { token })).status === 200,
  ],
  [
    'datasets(userId) and dataset(id)',
    async (token) => {
      const reply = await graphql(
        app.url,
        'query ($user: ID!, $id: ID!) { datasets(userId: $user) { totalCount } dataset(id: $id) { id } }',
        { user: owner.userid, id: datasetId },
        token,
      );
      return reply.body.errors === undefined;
    },
  ],
  [
    'deviceLogs(userId)',
    async (token) => {
      const reply = await graphql(
        app.url,
        `query ($user: ID!) { deviceLogs(userId: $user, filter: { startAt: "${WINDOW.start}", endAt: "${WINDOW.end}" }) { totalCount } }`,
        { user: owner.userid },
        token,
      );
      return reply.body.errors === undefined;
    },
  ],
];

describe('reading an account’s data', () => {
  it.each(READS)('%s: the owner and a viewer read; `upload` or `note` alone reads nothing', async (_name, read) => {
    expect(await read(owner.token)).toBe(true);
    expect(await read(viewer.token)).toBe(true);
    expect(await read(uploader.token)).toBe(false);
    expect(await read(noter.token)).toBe(false);
  });

  it('live summaries (glucoseSummaryUpdated) refuse `upload` or `note` alone (FORBIDDEN)', async () => {
    for (const grantee of [uploader, noter]) {
      const client = liveClient(app.url, grantee.token);
      clients.push(client);
      const subscription = client.subscribe(
        'subscription ($user: ID!) { glucoseSummaryUpdated(userId: $user) { kind } }',
        {
          user: owner.userid,
        },
      );
      expect((await subscription.next()).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
  });

  it('an uploader still uploads what it cannot read', async () => {
    expect((await uploadLog(app, owner.userid, uploader.token, WINDOW)).status).toBe(201);
    expect((await uploadLog(app, owner.userid, noter.token, WINDOW)).status).toBe(403);
  });
});
