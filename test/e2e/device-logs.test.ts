import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { logEntries, md5, rawRequest, SMALL_LIMIT, SMALL_LIMIT_ENV, uploadBlob, uploadLog } from '../support/content';
import { call } from '../support/http';
import { storeDrivers } from '../support/store-drivers';
import { rowCount, storedKeys } from '../support/stored';

const WINDOW = { start: '2024-03-01T10:00:00Z', end: '2024-03-01T11:00:00Z' };

describe.each(storeDrivers())('device logs on the %s store', (_driver, storeEnv) => {
  let app: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    app = await startTestApp(await storeEnv());
    owner = await signUp(app, 'owner');
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('uploads a log, answers its record and gives the same entries back', async () => {
    const entries = logEntries(3);
    const body = JSON.stringify(entries);
    const uploaded = await uploadLog(app, owner.userid, owner.token, WINDOW, entries);
    expect(uploaded.status).toBe(201);
    const record = {
      id: expect.stringMatching(/^[0-9a-z]{32}$/),
      userId: owner.userid,
      digestMD5: md5(body),
      mediaType: 'application/json',
      size: Buffer.byteLength(body),
      createdTime: expect.any(String),
      startAt: '2024-03-01T10:00:00.000Z',
      endAt: '2024-03-01T11:00:00.000Z',
      startAtTime: '2024-03-01T10:00:00.000Z',
      endAtTime: '2024-03-01T11:00:00.000Z',
      revision: 1,
    };
    expect(uploaded.body).toEqual(record);
    const fetched = await call(app.url, `/v1/device_logs/${uploaded.body.id}`, { token: owner.token });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(uploaded.body);

    const content = await call(app.url, `/v1/device_logs/${uploaded.body.id}/content`, { token: owner.token });
    expect(content.status).toBe(200);
    expect(content.body).toEqual(entries);
    expect(content.headers.get('digest')).toBe(`MD5=${md5(body)}`);
    expect(content.headers.get('content-type')).toBe('application/json');
    expect(content.headers.get('start-at')).toBe('2024-03-01T10:00:00.000Z');
    expect(content.headers.get('end-at')).toBe('2024-03-01T11:00:00.000Z');
  });

  it('lists the logs inside the window (start inclusive, end exclusive, as Tidepool), newest upload first', async () => {
    const user = await signUp(app, 'windows');
    const upload = (start: string, end: string) => uploadLog(app, user.userid, user.token, { start, end });
    const morning = await upload('2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z');
    const noon = await upload('2024-05-01T12:00:00Z', '2024-05-01T13:00:00Z');
    const overlapping = await upload('2024-05-01T23:00:00Z', '2024-05-02T01:00:00Z');
    const list = async (start: string, end: string) => {
      const reply = await call(app.url, `/v1/users/${user.userid}/device_logs?startAtTime=${start}&endAtTime=${end}`, {
        token: user.token,
      });
      expect(reply.status).toBe(200);
      return reply.body.map((log: { id: string }) => log.id);
    };
    expect(await list('2024-05-01T00:00:00Z', '2024-05-02T00:00:00Z')).toEqual([noon.body.id, morning.body.id]);
    expect(await list('2024-05-01T08:00:00Z', '2024-05-01T09:00:00Z')).toEqual([]);
    expect(await list('2024-05-01T08:00:00Z', '2024-05-01T09:00:00.001Z')).toEqual([morning.body.id]);
    expect(await list('2024-05-01T08:00:00.001Z', '2024-05-01T10:00:00Z')).toEqual([]);
    expect(await list('2024-05-01T08:30:00Z', '2024-05-03T00:00:00Z')).toEqual([overlapping.body.id, noon.body.id]);
    expect(await list('2024-06-01T00:00:00Z', '2024-06-02T00:00:00Z')).toEqual([]);
  });

  it('refuses invalid entries with 400 naming the entry and field, keeping nothing', async () => {
    const user = await signUp(app, 'invalid');
    const valid = logEntries(3);
    const cases: [unknown, RegExp][] = [
      [[valid[0], valid[1], { ...valid[2], message: '' }], /entry 2: message must be a non-empty string/],
      [[{ ...valid[0], type: 'shout' }], /entry 0: type must be one of send, receive/],
      [[valid[0], { ...valid[1], managerIdentifier: undefined }], /entry 1: managerIdentifier/],
      [[{ ...valid[0], deviceIdentifier: 42 }], /entry 0: deviceIdentifier/],
      [[{ ...valid[0], timestamp: 'yesterday' }], /timestamp/],
      [['a string'], /entry 0 must be a JSON object/],
      [{ not: 'an array' }, /not a JSON array/],
      ['[{"type": "send",', /not a JSON array/],
      [[valid[0], { ...valid[1], timestamp: '2024-02-30T10:30:00Z' }], /entry 1: .*timestamp/],
      [[valid[0], valid[1], { ...valid[2], message: 'x'.repeat(3 * 1024 * 1024) }], /entry 2 is larger than 1 MiB/],
    ];
    for (const [entries, reason] of cases) {
      const reply = await uploadLog(app, user.userid, user.token, WINDOW, entries);
      expect({ status: reply.status, reason: reply.body.reason }).toEqual({
        status: 400,
        reason: expect.stringMatching(reason),
      });
    }
    expect(await rowCount(app, `device_logs where user_id = '${user.userid}'`)).toBe(0);
    expect(await storedKeys(app, `device-logs/${user.userid}/`)).toEqual([]);
  });

  it('requires the Digest, time window and JSON content type, each named when wrong', async () => {
    const attempt = (headers: Record<string, string>, body?: string) =>
      body === undefined
        ? uploadLog(app, owner.userid, owner.token, WINDOW, logEntries(1), headers)
        : call(app.url, `/v1/users/${owner.userid}/device_logs`, {
            method: 'POST',
            token: owner.token,
            headers: {
              'content-type': 'application/json',
              digest: `md5=${md5(body)}`,
              'x-logs-start-at-time': WINDOW.start,
              'x-logs-end-at-time': WINDOW.end,
              ...headers,
            },
            body,
          });
    const refused = async (reply: Awaited<ReturnType<typeof attempt>>, status: number, reason: RegExp) => {
      expect({ status: reply.status, reason: reply.body.reason }).toEqual({
        status,
        reason: expect.stringMatching(reason),
      });
    };
    const unsent = async (headers: Record<string, string>, remove: string) => {
      const body = JSON.stringify(logEntries(1));
      const all: Record<string, string> = {
        'content-type': 'application/json',
        digest: `md5=${md5(body)}`,
        'x-logs-start-at-time': WINDOW.start,
        'x-logs-end-at-time': WINDOW.end,
        ...headers,
      };
      delete all[remove];
      return call(app.url, `/v1/users/${owner.userid}/device_logs`, {
        method: 'POST',
        token: owner.token,
        headers: all,
        body: Buffer.from(body),
      });
    };
    await refused(await unsent({}, 'digest'), 400, /header "Digest" is missing/);
    await refused(await unsent({}, 'x-logs-start-at-time'), 400, /X-Logs-Start-At-Time" is missing/);
    await refused(await unsent({}, 'x-logs-end-at-time'), 400, /X-Logs-End-At-Time" is missing/);
    await refused(await attempt({ 'x-logs-start-at-time': 'soon' }), 400, /X-Logs-Start-At-Time" is invalid/);
    await refused(
      await attempt({ 'x-logs-end-at-time': '2024-02-30T10:00:00Z' }),
      400,
      /X-Logs-End-At-Time" is invalid/,
    );
    await refused(await attempt({ digest: 'md5=not-base64' }), 400, /Digest" is invalid/);
    await refused(await attempt({ digest: `sha-256=${md5('x')}` }), 400, /Digest" is invalid/);
    const body = JSON.stringify(logEntries(1));
    expect((await attempt({ digest: `MD5=${md5(body)}` }, body)).status).toBe(201);
    const repeated = await rawRequest(
      app,
      `/v1/users/${owner.userid}/device_logs`,
      [
        ['Content-Type', 'application/json'],
        ['X-Tidepool-Session-Token', owner.token],
        ['X-Logs-Start-At-Time', WINDOW.start],
        ['X-Logs-End-At-Time', WINDOW.end],
        ['Digest', `md5=${md5(body)}`],
        ['Digest', `md5=${md5(body)}`],
      ],
      Buffer.from(body),
    );
    expect(repeated).toEqual({ status: 400, text: expect.stringMatching(/Digest.*more than once/) });
    await refused(
      await attempt({ 'x-logs-start-at-time': WINDOW.end, 'x-logs-end-at-time': WINDOW.start }),
      400,
      /startAtTime must not be later than endAtTime/,
    );
    await refused(await attempt({ 'content-type': 'text/plain' }), 415, /application\/json/);
    await refused(await attempt({ digest: `md5=${md5('something else')}` }), 400, /does not equal calculated digest/);
    await refused(await attempt({}, ''), 400, /empty/);
  });

  it('reads the rest of a log it refused midway, so the connection serves the next request', async () => {
    // fetch keeps one connection per origin busy until the whole body is sent: a refused upload
    // whose rest went unread would hold back every request after it.
    const huge = { ...logEntries(1)[0], message: 'x'.repeat(3 * 1024 * 1024) };
    const refused = await uploadLog(app, owner.userid, owner.token, WINDOW, [huge]);
    expect(refused.status).toBe(400);
    const within5s = (reply: Promise<{ status: number }>) =>
      Promise.race([
        reply.then(({ status }) => status),
        new Promise((resolve) => setTimeout(() => resolve('no answer within 5 s'), 5_000)),
      ]);
    // Refused before its body is read, then accepted: both on the connection the big one used.
    const noStart = { 'x-logs-start-at-time': '' };
    expect(await within5s(uploadLog(app, owner.userid, owner.token, WINDOW, logEntries(1), noStart))).toBe(400);
    expect(await within5s(uploadLog(app, owner.userid, owner.token, WINDOW))).toBe(201);
  });

  it('answers a caller without credentials 401 before looking at its headers', async () => {
    const reply = await call(app.url, `/v1/users/${owner.userid}/device_logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', digest: 'md5=xx' },
      body: '[]',
    });
    expect(reply.status).toBe(401);
  });

  // At a 1 MiB limit (CONTENT_SIZE_LIMIT_BYTES): the blob suite crosses the real 100 MiB once.
  it('accepts a log of exactly the configured limit and refuses one byte more with 413, keeping nothing', async () => {
    const small = await startTestApp({ ...(await storeEnv()), ...SMALL_LIMIT_ENV });
    try {
      await crossLogLimit(small);
    } finally {
      await small.stop();
    }
  });

  async function crossLogLimit(limited: TestApp) {
    const user = await signUp(limited, 'large-log');
    const entry = JSON.stringify(logEntries(1)[0]);
    /** A JSON array of copies of `entry`, padded with spaces to exactly `size` bytes. */
    function log(size: number) {
      const per = entry.length + 1;
      const count = Math.floor((size - 2) / per);
      const padding = size - 2 - count * per + 1;
      function* parts() {
        yield Buffer.from('[');
        const block = Buffer.from(Array.from({ length: 1000 }, () => `${entry},`).join(''));
        let left = count;
        while (left > 1000) {
          yield block;
          left -= 1000;
        }
        yield Buffer.from(`${Array.from({ length: left }, () => entry).join(',')}${' '.repeat(padding)}]`);
      }
      const hash = createHash('md5');
      let total = 0;
      for (const part of parts()) {
        hash.update(part);
        total += part.length;
      }
      expect(total).toBe(size);
      return { stream: () => Readable.toWeb(Readable.from(parts())), digest: hash.digest('base64') };
    }
    const send = (body: ReturnType<typeof log>) =>
      fetch(`${limited.url}/v1/users/${user.userid}/device_logs`, {
        method: 'POST',
        headers: {
          'x-tidepool-session-token': user.token,
          'content-type': 'application/json',
          digest: `md5=${body.digest}`,
          'x-logs-start-at-time': WINDOW.start,
          'x-logs-end-at-time': WINDOW.end,
        },
        body: body.stream() as ReadableStream,
        duplex: 'half',
      } as RequestInit);
    const exact = await send(log(SMALL_LIMIT));
    expect(exact.status).toBe(201);
    expect(await exact.json()).toMatchObject({ size: SMALL_LIMIT });
    const over = await send(log(SMALL_LIMIT + 1));
    expect(over.status).toBe(413);
    expect(await rowCount(limited, `device_logs where user_id = '${user.userid}'`)).toBe(1);
    expect(await storedKeys(limited, `device-logs/${user.userid}/`)).toHaveLength(1);
  }

  it('requires both ends of the listing window', async () => {
    const list = (query: string) =>
      call(app.url, `/v1/users/${owner.userid}/device_logs${query}`, { token: owner.token });
    expect((await list('?startAtTime=2024-01-01T00:00:00Z')).body.reason).toMatch(/endAtTime.*required/);
    expect((await list('?endAtTime=2024-01-01T00:00:00Z')).body.reason).toMatch(/startAtTime.*required/);
    expect((await list('?startAtTime=then&endAtTime=2024-01-01T00:00:00Z')).status).toBe(400);
    expect((await call(app.url, `/v1/device_logs/${'b'.repeat(32)}`, { token: owner.token })).status).toBe(404);
    expect((await call(app.url, '/v1/device_logs/short', { token: owner.token })).status).toBe(400);
  });

  it('validates a 1,000-entry log and stores it byte for byte', async () => {
    const entries = logEntries(1000);
    const uploaded = await uploadLog(app, owner.userid, owner.token, WINDOW, entries);
    expect(uploaded.status).toBe(201);
    const content = await call(app.url, `/v1/device_logs/${uploaded.body.id}/content`, { token: owner.token });
    expect(content.text).toBe(JSON.stringify(entries));
  });

  it('removes the blobs, device logs and bytes of a deleted account', async () => {
    const user = await signUp(app, 'leaving');
    await uploadBlob(app, user.userid, user.token);
    const log = await uploadLog(app, user.userid, user.token, WINDOW);
    expect(await storedKeys(app, `device-logs/${user.userid}/`)).toHaveLength(1);
    const deleted = await call(app.url, `/auth/user/${user.userid}`, {
      method: 'DELETE',
      token: user.token,
      json: { password: user.password },
    });
    expect(deleted.status).toBe(204);
    expect(await rowCount(app, `blobs where user_id = '${user.userid}'`)).toBe(0);
    expect(await rowCount(app, `device_logs where user_id = '${user.userid}'`)).toBe(0);
    expect(await storedKeys(app, `blobs/${user.userid}/`)).toEqual([]);
    expect(await storedKeys(app, `device-logs/${user.userid}/`)).toEqual([]);
    const server = await serverToken(app);
    expect((await call(app.url, `/v1/device_logs/${log.body.id}`, { token: server })).status).toBe(404);
  });
});
