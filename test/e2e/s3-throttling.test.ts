import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { uploadBlob } from '../support/content';
import { describeWithS3 } from '../support/describe-with-s3';
import { call } from '../support/http';
import { startFaultProxy, type FaultProxy } from '../support/s3-fault-proxy';
import { sharedS3Settings } from '../support/s3-server';
import { s3Env } from '../support/store-drivers';

/**
 * The service on an S3 store that throttles (a fault proxy in front of the real Swift server):
 * what can be sent again is, and the client never notices; a body streamed from the client
 * cannot be, so the client is told to retry later, and nothing half-stored is left.
 */
describeWithS3('a throttling S3 store, end to end', () => {
  let proxy: FaultProxy;
  let app: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    const settings = sharedS3Settings()!;
    proxy = await startFaultProxy(settings.endpoint);
    app = await startTestApp(s3Env({ ...settings, endpoint: proxy.endpoint }));
    owner = await signUp(app, 'throttled');
  });

  afterAll(async () => {
    await app?.stop();
    await proxy?.close();
  });

  beforeEach(() => proxy.reset());

  it('answers an upload whose streamed PUT is throttled with 503 and Retry-After, sent once, keeping nothing', async () => {
    proxy.fail('put', 'slow-down');
    const reply = await uploadBlob(app, owner.userid, owner.token, randomBytes(64 * 1024));
    expect(reply.status).toBe(503);
    expect(reply.headers.get('retry-after')).toBe('5');
    expect(reply.body).toEqual(
      expect.objectContaining({ code: 503, reason: expect.stringMatching(/object store is unavailable/) }),
    );
    expect(proxy.attempts('put')).toBe(1);
    const listed = await call(app.url, `/v1/users/${owner.userid}/blobs`, { token: owner.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([]);
  });

  it('reads content the store throttled twice, without the client noticing', async () => {
    const bytes = randomBytes(32 * 1024);
    const uploaded = await uploadBlob(app, owner.userid, owner.token, bytes);
    expect(uploaded.status).toBe(201);
    proxy.fail('get', 'slow-down', 2);
    const read = await fetch(`${app.url}/v1/blobs/${uploaded.body.id}/content`, {
      headers: { 'x-tidepool-session-token': owner.token },
    });
    expect(read.status).toBe(200);
    expect(Buffer.from(await read.arrayBuffer()).equals(bytes)).toBe(true);
    expect(proxy.attempts('get')).toBe(3);
  });
});
