import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { md5, rawRequest, uploadBlob, uploadLog } from '../support/content';
import { eventually } from '../support/eventually';
import { call, graphql } from '../support/http';
import { rowCount } from '../support/stored';

/**
 * Issue 27, item 8: 12,436 empty blobs were created in 25 s by one account, with no bound. Each
 * kind of object an account creates has a quota (here set small), answered 403 naming it.
 */
const QUOTA = 2;
const WINDOW = { start: '2024-03-01T00:00:00Z', end: '2024-03-02T00:00:00Z' };

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({
    BLOB_QUOTA: String(QUOTA),
    DEVICE_LOG_QUOTA: String(QUOTA),
    DATASET_QUOTA: String(QUOTA),
    CLINIC_QUOTA: String(QUOTA),
  });
});
afterAll(() => app?.stop());

const emptyBlob = (owner: TestAccount) =>
  call(app.url, `/v1/users/${owner.userid}/blobs`, {
    method: 'POST',
    token: owner.token,
    headers: { 'content-type': 'text/plain' },
  });
const dataset = (owner: TestAccount) =>
  call(app.url, `/v1/users/${owner.userid}/datasets`, {
    token: owner.token,
    json: { type: 'upload', dataSetType: 'normal' },
  });

const clinic = (owner: TestAccount) =>
  call(app.url, '/v1/clinics', { token: owner.token, json: { name: 'Clinic', preferredBgUnits: 'mg/dL' } });

/** What is created, how, what the quota's message calls it, and the status of a creation (Tidepool's). */
type Creation = [string, (owner: TestAccount) => Promise<{ status: number; body: any }>, string, number];

const CREATIONS: Creation[] = [
  ['blobs', emptyBlob, 'blobs', 201],
  ['blobs with content', (owner) => uploadBlob(app, owner.userid, owner.token), 'blobs', 201],
  ['device logs', (owner) => uploadLog(app, owner.userid, owner.token, WINDOW), 'device logs', 201],
  ['datasets', dataset, 'datasets', 201],
  ['clinics', clinic, 'clinic memberships', 200],
];

describe.each(CREATIONS)('the quota of %s', (_kind, create, name, created) => {
  it('answers 403 naming the quota and its value once the account holds it; other accounts are not held back', async () => {
    const [owner, other] = await Promise.all([signUp(app, 'owner'), signUp(app, 'other')]);
    for (let index = 0; index < QUOTA; index++) expect((await create(owner)).status).toBe(created);
    const refused = await create(owner);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 403,
      reason: `The account holds ${QUOTA} ${name}, its quota: remove some before adding more`,
    });
    expect((await create(other)).status).toBe(created);
  });

  it('holds when creations race at the quota: at most the quota exist', async () => {
    const owner = await signUp(app, 'racer');
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => create(owner)))).map((reply) => reply.status);
    expect(statuses.filter((status) => status === created)).toHaveLength(QUOTA);
    expect(statuses.filter((status) => status !== created)).toEqual(Array(8 - QUOTA).fill(403));
  });
});

it('GraphQL answers FORBIDDEN with the quota and its value in the extensions', async () => {
  const owner = await signUp(app, 'owner');
  for (let index = 0; index < QUOTA; index++) expect((await emptyBlob(owner)).status).toBe(201);
  const reply = await graphql(
    app.url,
    'mutation ($userId: ID!) { createBlob(input: { userId: $userId, mediaType: "text/plain" }) { blob { id } } }',
    { userId: owner.userid },
    owner.token,
  );
  expect(reply.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', quota: 'blobs', limit: QUOTA });
  expect(await rowCount(app, `blobs where user_id = '${owner.userid}'`)).toBe(QUOTA);
});

describe('uploads in flight', () => {
  const UPLOADS = 2;
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ UPLOADS_PER_ACCOUNT: String(UPLOADS) });
  });
  afterAll(() => limited?.stop());

  it('an account has at most UPLOADS_PER_ACCOUNT uploads in flight: one more is answered 429 with Retry-After', async () => {
    const owner = await signUp(limited, 'sender');
    const body = Buffer.from('the bytes of a slow upload');
    const headers: [string, string][] = [
      ['Content-Type', 'application/octet-stream'],
      ['X-Tidepool-Session-Token', owner.token],
      ['Digest', `md5=${md5(body)}`],
    ];
    const announced = async () =>
      (await rowCount(limited, `pending_objects where key like 'blobs/${owner.userid}/%'`)) === UPLOADS;
    // Each upload sends part of its body, then waits while the next one starts.
    const slow = (duringPause: () => Promise<void>) =>
      rawRequest(limited, `/v1/users/${owner.userid}/blobs`, headers, body, { pauseAfter: 10, duringPause });
    let refused: Awaited<ReturnType<typeof uploadBlob>> | undefined;
    const first = slow(async () => {
      const second = await slow(async () => {
        await eventually(announced, 'both uploads are in flight');
        refused = await uploadBlob(limited, owner.userid, owner.token);
      });
      expect(second).toMatchObject({ status: 201 });
    });
    expect(await first).toMatchObject({ status: 201 });
    expect(refused!.status).toBe(429);
    expect(refused!.headers.get('retry-after')).toBe('5');
    expect(refused!.body.reason).toContain(`${UPLOADS} uploads in progress`);
  });
});
