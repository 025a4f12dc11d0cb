import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';
import { signUp } from '../support/accounts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('smoke', () => {
  it('signs up and reads itself', async () => {
    const alice = await signUp(app);
    const me = await call(app.url, '/auth/user', { token: alice.token });
    expect(me.status).toBe(200);
    expect(me.body.userid).toBe(alice.userid);
  });
});
