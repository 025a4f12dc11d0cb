import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { logEntries, md5, MiB, rawRequest, uploadBlob, uploadLog } from '../support/content';
import { eventually } from '../support/eventually';
import { call } from '../support/http';
import { describeWithS3 } from '../support/describe-with-s3';
import { startS3Server, type TestS3Server } from '../support/s3-server';
import { s3Env, storeDrivers } from '../support/store-drivers';
import { rowCount, storedKeys } from '../support/stored';

/**
 * Metadata and bytes never disagree: whatever dies between writing the bytes and committing
 * the record (the client, the database, the object store), once the service has recovered
 * there is neither a record without content nor content without a record.
 */

// Short, so the sweeper settles abandoned uploads within the test (it runs every timeout / 4).
const RECOVERY_ENV = { UPLOAD_TIMEOUT_SECONDS: '2' };

/** Where each kind of content keeps its records and its bytes. */
const BLOBS = { table: 'blobs', keys: 'blobs' };
const DEVICE_LOGS = { table: 'device_logs', keys: 'device-logs' };

async function expectNothingKept(app: TestApp, user: TestAccount, kinds = [BLOBS]): Promise<void> {
  await eventually(async () => (await rowCount(app, 'pending_objects')) === 0, 'no upload is pending');
  for (const { table, keys } of kinds) {
    expect(await rowCount(app, `${table} where user_id = '${user.userid}'`)).toBe(0);
    expect(await storedKeys(app, `${keys}/${user.userid}/`)).toEqual([]);
  }
}

/** Every blob record of `user` has its bytes, and every stored object of theirs has a record. */
async function expectRecordsMatchBytes(app: TestApp, user: TestAccount): Promise<void> {
  await eventually(async () => (await rowCount(app, 'pending_objects')) === 0, 'no upload is pending');
  const records = await app.database.query(`select object_key from blobs where user_id = '${user.userid}'`);
  expect((await storedKeys(app, `blobs/${user.userid}/`)).sort()).toEqual(
    records.map((row) => row.object_key as string).sort(),
  );
}

const uploadHeaders = (user: TestAccount, body: Buffer): [string, string][] => [
  ['Content-Type', 'application/octet-stream'],
  ['X-Tidepool-Session-Token', user.token],
  ['Digest', `md5=${md5(body)}`],
];

describe.each(storeDrivers())('consistency on the %s store', (_driver, storeEnv) => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ ...(await storeEnv()), ...RECOVERY_ENV });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('keeps nothing of an upload whose client vanishes midway', async () => {
    const user = await signUp(app, 'vanishing');
    const body = randomBytes(12 * MiB);
    const reply = await rawRequest(app, `/v1/users/${user.userid}/blobs`, uploadHeaders(user, body), body, {
      pauseAfter: 9 * MiB,
      abort: true,
    });
    expect(reply).toBe('aborted');
    await expectNothingKept(app, user);
  });

  it('answers 503 and keeps nothing when the database goes away between the bytes and the record', async () => {
    const user = await signUp(app, 'database');
    const body = randomBytes(10 * MiB);
    const reply = await rawRequest(app, `/v1/users/${user.userid}/blobs`, uploadHeaders(user, body), body, {
      pauseAfter: 9 * MiB,
      duringPause: () => app.database.setAvailable(false),
    });
    await app.database.setAvailable(true);
    expect(reply).toEqual({ status: 503, text: expect.stringMatching(/database is unavailable/) });
    await expectNothingKept(app, user);
    // And the service works again once the database is back.
    await eventually(async () => (await uploadBlob(app, user.userid, user.token)).status === 201, 'uploads work again');
  });

  it('answers 503 and keeps nothing when the database goes away during a device-log upload', async () => {
    const user = await signUp(app, 'database-log');
    const body = Buffer.from(JSON.stringify(logEntries(40_000)));
    const headers: [string, string][] = [
      ['Content-Type', 'application/json'],
      ['X-Tidepool-Session-Token', user.token],
      ['Digest', `md5=${md5(body)}`],
      ['X-Logs-Start-At-Time', '2024-03-01T10:00:00Z'],
      ['X-Logs-End-At-Time', '2024-03-02T10:00:00Z'],
    ];
    const reply = await rawRequest(app, `/v1/users/${user.userid}/device_logs`, headers, body, {
      pauseAfter: Math.floor(body.length * 0.9),
      duringPause: () => app.database.setAvailable(false),
    });
    await app.database.setAvailable(true);
    expect(reply).toEqual({ status: 503, text: expect.stringMatching(/database is unavailable/) });
    await expectNothingKept(app, user, [DEVICE_LOGS]);
  });

  it('answers 503 without writing anything when the database is down before the upload', async () => {
    const user = await signUp(app, 'down');
    await app.database.setAvailable(false);
    try {
      const reply = await uploadBlob(app, user.userid, user.token, randomBytes(1000));
      expect(reply.status).toBe(503);
    } finally {
      await app.database.setAvailable(true);
    }
    await expectNothingKept(app, user);
  });

  it('never leaves a record without its bytes when all blobs are deleted during uploads', async () => {
    const user = await signUp(app, 'racing');
    const accepted: string[] = [];
    for (let round = 0; round < 12; round++) {
      const uploads = Array.from({ length: 5 }, () => uploadBlob(app, user.userid, user.token, randomBytes(200_000)));
      await new Promise((resolve) => setTimeout(resolve, round * 3));
      const removal = call(app.url, `/v1/users/${user.userid}/blobs`, { method: 'DELETE', token: user.token });
      for (const reply of await Promise.all(uploads)) {
        expect(reply.status).toBe(201);
        accepted.push(reply.body.id);
      }
      expect((await removal).status).toBe(204);
    }
    await expectRecordsMatchBytes(app, user);
    // Whatever survived the removals is whole: an upload that committed after one is not lost.
    const kept = await app.database.query(`select id from blobs where user_id = '${user.userid}'`);
    for (const { id } of kept) {
      expect((await call(app.url, `/v1/blobs/${id}/content`, { token: user.token })).status).toBe(200);
    }
  });

  it('never leaves records or bytes of an account deleted during uploads', async () => {
    const user = await signUp(app, 'leaving');
    const uploads = [
      ...Array.from({ length: 6 }, () => uploadBlob(app, user.userid, user.token, randomBytes(300_000))),
      ...Array.from({ length: 3 }, () =>
        uploadLog(
          app,
          user.userid,
          user.token,
          { start: '2024-03-01T10:00:00Z', end: '2024-03-01T11:00:00Z' },
          logEntries(2_000),
        ),
      ),
    ];
    await new Promise((resolve) => setTimeout(resolve, 5));
    const deletion = await call(app.url, `/auth/user/${user.userid}`, {
      method: 'DELETE',
      token: user.token,
      json: { password: user.password },
    });
    expect(deletion.status).toBe(204);
    for (const reply of await Promise.all(uploads)) expect([201, 401, 404]).toContain(reply.status);
    await expectNothingKept(app, user, [BLOBS, DEVICE_LOGS]);
  });
});

describe('consistency when the filesystem store fails', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(RECOVERY_ENV);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('answers 503 naming the store while its folder cannot be written, and recovers', async () => {
    const user = await signUp(app, 'disk');
    const uploaded = await uploadBlob(app, user.userid, user.token, 'kept safe');
    // The store's folder turns into a file: every write and read below it fails (as a full or
    // read-only disk would, which root in a test cannot simulate).
    const root = path.join(app.config.dataDir, 'objects');
    await fsp.rename(root, `${root}.away`);
    await fsp.writeFile(root, 'not a folder');
    try {
      const refused = await uploadBlob(app, user.userid, user.token, 'lost');
      expect(refused.status).toBe(503);
      // The client reads which dependency failed, never its folder (that goes to the log).
      expect(refused.body.reason).toBe('The object store is unavailable; try again shortly');
      expect(refused.text).not.toContain(app.config.dataDir);
      const download = await call(app.url, `/v1/blobs/${uploaded.body.id}/content`, { token: user.token });
      expect(download.status).toBe(503);
      const ready = await call(app.url, '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.objectStore).toBe('unavailable');
      expect(ready.text).not.toContain(app.config.dataDir);
    } finally {
      await fsp.rm(root);
      await fsp.rename(`${root}.away`, root);
    }
    const again = await call(app.url, `/v1/blobs/${uploaded.body.id}/content`, { token: user.token });
    expect(again.text).toBe('kept safe');
    expect(await rowCount(app, `blobs where user_id = '${user.userid}'`)).toBe(1);
    await expectRecordsMatchBytes(app, user);
  });
});

describeWithS3('consistency when the S3 store dies', () => {
  let app: TestApp;
  let store: TestS3Server;

  beforeAll(async () => {
    store = await startS3Server();
    app = await startTestApp({ ...s3Env(store.settings), ...RECOVERY_ENV });
  });
  afterAll(async () => {
    await app?.stop();
    await store?.destroy();
  });

  it('answers 503 naming the store, and settles the half-written upload once the store is back', async () => {
    const user = await signUp(app, 'store');
    const body = randomBytes(20 * MiB);
    const reply = await rawRequest(app, `/v1/users/${user.userid}/blobs`, uploadHeaders(user, body), body, {
      pauseAfter: 10 * MiB,
      duringPause: () => store.stop(),
    });
    expect(reply).toEqual({ status: 503, text: expect.stringMatching(/object store is unavailable/) });
    expect(await rowCount(app, `blobs where user_id = '${user.userid}'`)).toBe(0);

    const ready = await call(app.url, '/readyz');
    expect(ready.status).toBe(503);
    expect((await uploadBlob(app, user.userid, user.token)).status).toBe(503);

    await store.restart();
    await expectNothingKept(app, user);
    const uploaded = await uploadBlob(app, user.userid, user.token, 'after the outage');
    expect(uploaded.status).toBe(201);
    expect((await call(app.url, '/readyz')).status).toBe(200);
  });

  it('answers 503 for a download while the store is down', async () => {
    const user = await signUp(app, 'download');
    const uploaded = await uploadBlob(app, user.userid, user.token, 'kept safe');
    await store.stop();
    try {
      const reply = await call(app.url, `/v1/blobs/${uploaded.body.id}/content`, { token: user.token });
      expect(reply.status).toBe(503);
      expect(reply.body.reason).toMatch(/object store is unavailable/);
    } finally {
      await store.restart();
    }
    const again = await call(app.url, `/v1/blobs/${uploaded.body.id}/content`, { token: user.token });
    expect(again.text).toBe('kept safe');
  });
});
