import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import {
  DEFAULT_LIMIT,
  generatedBody,
  md5,
  MiB,
  rawRequest,
  SMALL_LIMIT,
  SMALL_LIMIT_ENV,
  uploadBlob,
} from '../support/content';
import { eventually } from '../support/eventually';
import { call } from '../support/http';
import { storeDrivers } from '../support/store-drivers';
import { rowCount, storedKeys } from '../support/stored';

describe.each(storeDrivers())('blobs on the %s store', (driver, storeEnv) => {
  let app: TestApp;
  let server: string;
  let owner: TestAccount;

  beforeAll(async () => {
    app = await startTestApp(await storeEnv());
    server = await serverToken(app);
    owner = await signUp(app, 'owner');
  });
  afterAll(async () => {
    await app?.stop();
  });

  const blobPath = (id: string) => `/v1/blobs/${id}`;

  it('stores content, answers its metadata and gives the same bytes back', async () => {
    const bytes = randomBytes(5000);
    const created = await uploadBlob(app, owner.userid, owner.token, bytes, { 'content-type': 'image/png' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{32}$/),
      userId: owner.userid,
      digestMD5: md5(bytes),
      mediaType: 'image/png',
      size: 5000,
      status: 'available',
      createdTime: expect.any(String),
      modifiedTime: expect.any(String),
      revision: 1,
    });
    const metadata = await call(app.url, blobPath(created.body.id), { token: owner.token });
    expect(metadata.status).toBe(200);
    expect(metadata.body).toEqual(created.body);

    const download = await fetch(`${app.url}${blobPath(created.body.id)}/content`, {
      headers: { 'x-tidepool-session-token': owner.token },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(download.headers.get('digest')).toBe(`MD5=${md5(bytes)}`);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
  });

  it('creates a blob without content as `created` and moves it to `available` when content is added', async () => {
    const empty = await call(app.url, `/v1/users/${owner.userid}/blobs`, {
      method: 'POST',
      token: owner.token,
      headers: { 'content-type': 'text/plain' },
    });
    expect(empty.status).toBe(201);
    expect(empty.body).toMatchObject({ status: 'created', revision: 0, mediaType: 'text/plain' });
    expect(empty.body).not.toHaveProperty('digestMD5');
    expect((await call(app.url, `${blobPath(empty.body.id)}/content`, { token: owner.token })).status).toBe(404);

    const listed = await call(app.url, `/v1/users/${owner.userid}/blobs?status=created`, { token: owner.token });
    expect(listed.body.map((blob: { id: string }) => blob.id)).toEqual([empty.body.id]);

    const content = Buffer.from('now with content');
    const filled = await call(app.url, blobPath(empty.body.id), {
      method: 'PUT',
      token: owner.token,
      headers: { 'content-type': 'text/plain', digest: `md5=${md5(content)}` },
      body: content,
    });
    expect(filled.status).toBe(200);
    expect(filled.body).toMatchObject({
      status: 'available',
      revision: 1,
      size: content.length,
      digestMD5: md5(content),
    });

    const again = await call(app.url, blobPath(empty.body.id), {
      method: 'PUT',
      token: owner.token,
      headers: { 'content-type': 'text/plain', digest: `md5=${md5('more')}` },
      body: 'more',
    });
    expect(again.status).toBe(409);
    const text = await fetch(`${app.url}${blobPath(empty.body.id)}/content`, {
      headers: { 'x-tidepool-session-token': owner.token },
    });
    expect(await text.text()).toBe('now with content');
  });

  it('lists blobs newest first, filtered by media type and status', async () => {
    const user = await signUp(app, 'lister');
    const png = await uploadBlob(app, user.userid, user.token, 'a png', { 'content-type': 'image/png' });
    const text = await uploadBlob(app, user.userid, user.token, 'a text', { 'content-type': 'text/plain' });
    const pending = await call(app.url, `/v1/users/${user.userid}/blobs`, {
      method: 'POST',
      token: user.token,
      headers: { 'content-type': 'text/plain' },
    });
    const ids = async (query: string) => {
      const reply = await call(app.url, `/v1/users/${user.userid}/blobs${query}`, { token: user.token });
      expect(reply.status).toBe(200);
      return reply.body.map((blob: { id: string }) => blob.id);
    };
    expect(await ids('')).toEqual([text.body.id, png.body.id]);
    expect(await ids('?mediaType=image/png')).toEqual([png.body.id]);
    expect(await ids('?status=created')).toEqual([pending.body.id]);
    expect(await ids('?status=created,available&mediaType=text/plain')).toEqual([pending.body.id, text.body.id]);
    expect(await ids('?status=available&status=created&size=1')).toEqual([pending.body.id]);
    expect(await ids('?size=1&page=1')).toEqual([png.body.id]);
    expect((await call(app.url, `/v1/users/${user.userid}/blobs?status=deleted`, { token: user.token })).status).toBe(
      400,
    );
    expect((await call(app.url, `/v1/users/${user.userid}/blobs?size=0`, { token: user.token })).status).toBe(400);
  });

  it('deletes one blob (404 afterwards and for unknown ids) and all blobs of a user, bytes included', async () => {
    const user = await signUp(app, 'deleter');
    const first = await uploadBlob(app, user.userid, user.token);
    const second = await uploadBlob(app, user.userid, user.token);
    expect(await storedKeys(app, `blobs/${user.userid}/`)).toHaveLength(2);

    expect(
      (await call(app.url, `${blobPath(first.body.id)}?revision=7`, { method: 'DELETE', token: user.token })).status,
    ).toBe(404);
    expect(
      (await call(app.url, `${blobPath(first.body.id)}?revision=1`, { method: 'DELETE', token: user.token })).status,
    ).toBe(204);
    expect((await call(app.url, blobPath(first.body.id), { token: user.token })).status).toBe(404);
    expect((await call(app.url, blobPath(first.body.id), { method: 'DELETE', token: user.token })).status).toBe(404);
    expect(await storedKeys(app, `blobs/${user.userid}/${first.body.id}`)).toEqual([]);

    const all = await call(app.url, `/v1/users/${user.userid}/blobs`, { method: 'DELETE', token: user.token });
    expect(all.status).toBe(204);
    expect((await call(app.url, blobPath(second.body.id), { token: user.token })).status).toBe(404);
    expect(await storedKeys(app, `blobs/${user.userid}/`)).toEqual([]);
  });

  describe('Digest header', () => {
    const body = Buffer.from('digest me');
    const attempt = (digest: string | undefined) =>
      uploadBlob(app, owner.userid, owner.token, body, digest === undefined ? {} : { digest });

    it('is required with content, and its algorithm name is case-insensitive', async () => {
      const withoutDigest = await call(app.url, `/v1/users/${owner.userid}/blobs`, {
        method: 'POST',
        token: owner.token,
        headers: { 'content-type': 'application/octet-stream' },
        body,
      });
      expect(withoutDigest.status).toBe(400);
      expect(withoutDigest.body.reason).toMatch(/header "Digest" is missing/);
      expect((await attempt(`MD5=${md5(body)}`)).status).toBe(201);
      expect((await attempt(`Md5=${md5(body)}`)).status).toBe(201);
    });

    it('treats an empty body as no content however it is framed; its digest must be that of nothing', async () => {
      const user = await signUp(app, 'empty');
      const create = (headers: Record<string, string>, content?: RequestInit['body']) =>
        fetch(`${app.url}/v1/users/${user.userid}/blobs`, {
          method: 'POST',
          headers: { 'x-tidepool-session-token': user.token, 'content-type': 'text/plain', ...headers },
          body: content,
          duplex: 'half',
        } as RequestInit);
      const emptyStream = () => new ReadableStream({ start: (controller) => controller.close() });
      const framings = [
        await create({}),
        await create({ digest: `md5=${md5('')}` }),
        await create({ 'content-length': '0' }, ''),
        await create({}, emptyStream()),
        await create({ digest: `md5=${md5('')}` }, emptyStream()),
      ];
      for (const reply of framings) {
        expect(reply.status).toBe(201);
        expect(await reply.json()).toMatchObject({ status: 'created', revision: 0 });
      }
      const wrong = await create({ digest: `md5=${md5('something')}` });
      expect(wrong.status).toBe(400);
      expect(((await wrong.json()) as { reason: string }).reason).toMatch(/does not equal calculated digest/);
      expect(await rowCount(app, `blobs where user_id = '${user.userid}'`)).toBe(framings.length);
      expect(await storedKeys(app, `blobs/${user.userid}/`)).toEqual([]);
      await eventually(async () => (await rowCount(app, 'pending_objects')) === 0, 'no upload is pending');
    });

    it('refuses malformed values, other algorithms and repeated headers, keeping nothing', async () => {
      const user = await signUp(app, 'digests');
      const refused = async (reply: { status: number; text: string }, reason: RegExp) => {
        expect(reply.status).toBe(400);
        expect(JSON.parse(reply.text).reason).toMatch(reason);
      };
      const send = (digest: string) =>
        uploadBlob(app, user.userid, user.token, body, { digest }).then((reply) => ({ ...reply, text: reply.text }));
      await refused(await send('md5=not-base64'), /Digest.*invalid/);
      await refused(await send(`md5=${md5(body).slice(0, 20)}`), /Digest.*invalid/);
      await refused(await send(`sha-256=${md5(body)}`), /Digest.*invalid/);
      await refused(await send(md5(body)), /Digest.*invalid/);
      const repeated = await rawRequest(
        app,
        `/v1/users/${user.userid}/blobs`,
        [
          ['Content-Type', 'application/octet-stream'],
          ['X-Tidepool-Session-Token', user.token],
          ['Digest', `md5=${md5(body)}`],
          ['Digest', `md5=${md5(body)}`],
        ],
        body,
      );
      if (repeated === 'aborted') throw new Error('the request was cut off');
      await refused(repeated, /Digest.*more than once/);
      const mismatch = await send(`md5=${md5('other content')}`);
      // The filesystem path hashes the bytes and names their digest; S3 checks Content-MD5 itself.
      const calculated = driver === 's3' ? 'of the content (checked by the object store)' : `"${md5(body)}"`;
      await refused(mismatch, /does not equal calculated digest/);
      expect(JSON.parse(mismatch.text).reason).toContain(`does not equal calculated digest ${calculated}`);
      expect(await rowCount(app, `blobs where user_id = '${user.userid}'`)).toBe(0);
      expect(await storedKeys(app, `blobs/${user.userid}/`)).toEqual([]);
    });
  });

  describe('size limit', () => {
    /** A service whose limit is 1 MiB (CONTENT_SIZE_LIMIT_BYTES): the same boundary, 2 MiB of traffic. */
    let small: TestApp;
    beforeAll(async () => {
      small = await startTestApp({ ...(await storeEnv()), ...SMALL_LIMIT_ENV });
    });
    afterAll(async () => {
      await small?.stop();
    });

    /** Uploads exactly `limit` bytes, then one byte more, and checks that only the first is kept. */
    async function crossLimit(target: TestApp, limit: number) {
      const user = await signUp(target, 'large');
      const upload = (body: ReturnType<typeof generatedBody>) =>
        fetch(`${target.url}/v1/users/${user.userid}/blobs`, {
          method: 'POST',
          headers: {
            'x-tidepool-session-token': user.token,
            'content-type': 'application/octet-stream',
            digest: `md5=${body.digest}`,
          },
          body: body.stream(),
          duplex: 'half',
        } as RequestInit);
      const exact = generatedBody(limit);
      const accepted = await upload(exact);
      expect(accepted.status).toBe(201);
      expect(await accepted.json()).toMatchObject({ size: limit, digestMD5: exact.digest, status: 'available' });

      const refused = await upload(generatedBody(limit + 1));
      expect(refused.status).toBe(413);
      expect(((await refused.json()) as { reason: string }).reason).toMatch(/larger than the limit/);
      expect(await rowCount(target, `blobs where user_id = '${user.userid}'`)).toBe(1);
      expect(await storedKeys(target, `blobs/${user.userid}/`)).toHaveLength(1);
    }

    it('accepts exactly the configured limit and refuses one byte more with 413, keeping nothing', () =>
      crossLimit(small, SMALL_LIMIT));

    // The real default once, on one driver: 200 MiB through the service and the store take
    // seconds here, many more on a loaded CI machine.
    (driver === 'filesystem' ? it : it.skip)(
      'accepts exactly 100 MiB by default and refuses one byte more with 413, keeping nothing',
      () => crossLimit(app, DEFAULT_LIMIT),
      60_000,
    );

    it('refuses a declared Content-Length over the limit before reading the body', async () => {
      const user = await signUp(small, 'declared');
      const reply = await rawRequest(
        small,
        `/v1/users/${user.userid}/blobs`,
        [
          ['Content-Type', 'application/octet-stream'],
          ['X-Tidepool-Session-Token', user.token],
          ['Digest', `md5=${md5('not what follows')}`],
        ],
        Buffer.alloc(1024),
        { contentLength: SMALL_LIMIT + 1, pauseAfter: 1024, abort: true },
      );
      expect(reply).toEqual({ status: 413, text: expect.stringMatching(/larger than the limit/) });
    });
  });

  it('keeps concurrent uploads of one user apart', async () => {
    const user = await signUp(app, 'concurrent');
    const bodies = Array.from({ length: 8 }, () => randomBytes(MiB));
    const replies = await Promise.all(bodies.map((body) => uploadBlob(app, user.userid, user.token, body)));
    expect(replies.map((reply) => reply.status)).toEqual(bodies.map(() => 201));
    for (const [index, reply] of replies.entries()) {
      const download = await fetch(`${app.url}${blobPath(reply.body.id)}/content`, {
        headers: { 'x-tidepool-session-token': user.token },
      });
      expect(md5(Buffer.from(await download.arrayBuffer()))).toBe(md5(bodies[index]));
    }
    const listed = await call(app.url, `/v1/users/${user.userid}/blobs`, { token: user.token });
    expect(listed.body).toHaveLength(8);
  });

  it('answers bad input with 400 naming the problem', async () => {
    const bad = async (path: string, init: Parameters<typeof call>[2], reason: RegExp) => {
      const reply = await call(app.url, path, { token: owner.token, ...init });
      expect(reply.status).toBe(400);
      expect(reply.body.reason).toMatch(reason);
    };
    await bad(
      '/v1/users/not-a-user/blobs',
      { method: 'POST', headers: { 'content-type': 'text/plain', digest: `md5=${md5('x')}` }, body: Buffer.from('x') },
      /userId/,
    );
    await bad(
      `/v1/users/${owner.userid}/blobs`,
      {
        method: 'POST',
        headers: { 'content-type': `application/${'x'.repeat(300)}`, digest: `md5=${md5('x')}` },
        body: Buffer.from('x'),
      },
      /Content-Type is longer than 255 characters/,
    );
    await bad(
      `/v1/blobs/${'a'.repeat(32)}`,
      { method: 'PUT', headers: { 'content-type': 'text/plain' } },
      /The request has no body: send the content/,
    );
    await bad(`/v1/users/${owner.userid}/blobs`, { method: 'POST', body: Buffer.from('x') }, /Content-Type.*missing/);
    await bad(
      `/v1/users/${owner.userid}/blobs`,
      { method: 'POST', headers: { 'content-type': 'nonsense' }, body: Buffer.from('x') },
      /media type/,
    );
    await bad('/v1/blobs/NOT-AN-ID', {}, /blobId/);
    await bad(`/v1/blobs/${'a'.repeat(31)}`, { method: 'DELETE' }, /blobId/);
    await bad(`/v1/blobs/${'a'.repeat(32)}?revision=-1`, { method: 'DELETE' }, /revision/);
    expect((await call(app.url, `/v1/blobs/${'a'.repeat(32)}`, { token: owner.token })).status).toBe(404);
    expect((await call(app.url, `/v1/blobs/${'a'.repeat(32)}`, { token: owner.token, method: 'DELETE' })).status).toBe(
      404,
    );
  });

  it('lets a server create blobs for any user, but not for one that does not exist', async () => {
    expect((await uploadBlob(app, owner.userid, server)).status).toBe(201);
    expect((await uploadBlob(app, '0123456789', server)).status).toBe(404);
  });
});
