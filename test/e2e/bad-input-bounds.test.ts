import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';

let app: TestApp;
let alice: TestAccount;
const errors: Record<string, unknown>[] = [];

beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: 'error' }, { logTo: (line) => errors.push(JSON.parse(line)) });
  alice = await signUp(app, 'alice');
});
afterAll(async () => {
  await app?.stop();
});

/** `{"a":{"a":…1…}}`, `levels` objects deep, as JSON text (the test's own JSON.stringify would recurse too). */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const asJson = (body: string) => ({ headers: { 'content-type': 'application/json' }, body });

describe('bodies nested without bound', () => {
  it('answer 400 on REST, with or without credentials, and log nothing (was: 500, stack overflow)', async () => {
    for (const [method, path, token] of [
      ['POST', '/auth/user', undefined],
      ['PUT', '/auth/user', alice.token],
      ['DELETE', `/auth/user/${alice.userid}`, alice.token],
      ['POST', `/access/${alice.userid}/0123456789`, alice.token],
    ] as const) {
      const reply = await call(app.url, path, { method, token, ...asJson(`{"zzz":${nested(20_000)}}`) });
      expect({ path, status: reply.status, body: reply.body }).toEqual({
        path,
        status: 400,
        body: { code: 400, reason: 'Objects or lists in the JSON body nest more than 32 levels deep', error: 0 },
      });
    }
    expect((await call(app.url, '/auth/user', { token: alice.token })).status).toBe(200);
    expect(errors).toEqual([]);
  });

  it('answer 400 on GraphQL, in a JSON body, a query string or a multipart request', async () => {
    const query = 'query ($v: String) { me { userid } }';
    const inBody = await call(app.url, '/graphql', {
      method: 'POST',
      token: alice.token,
      ...asJson(`{"query":${JSON.stringify(query)},"variables":{"v":${nested(20_000)}}}`),
    });
    expect(inBody.status).toBe(400);
    expect(inBody.body.errors[0].message).toBe('Objects or lists in the JSON body nest more than 32 levels deep');

    const search = new URLSearchParams({ query, variables: `{"v":${nested(200)}}` });
    const inQuery = await call(app.url, `/graphql?${search}`, { token: alice.token });
    expect(inQuery.status).toBe(400);
    expect(inQuery.body.errors[0].message).toBe('Objects or lists in the variables nest more than 32 levels deep');

    const form = new FormData();
    form.set('operations', `{"query":${JSON.stringify(query)},"variables":{"v":${nested(20_000)}}}`);
    form.set('map', '{}');
    const multipart = await call(app.url, '/graphql', {
      method: 'POST',
      token: alice.token,
      headers: { 'apollo-require-preflight': 'true' },
      body: form,
    });
    expect(multipart.status).toBe(400);
    expect(errors).toEqual([]);
  });

  it('take input nested exactly as deep as the bound', async () => {
    const signUpWith = (levels: number) =>
      call(app.url, '/auth/user', { method: 'POST', ...asJson(`{"zzz":${nested(levels)}}`) });
    expect((await signUpWith(31)).body.reason).not.toMatch(/levels deep/);
    expect((await signUpWith(32)).body.reason).toBe('Objects or lists in the JSON body nest more than 32 levels deep');
  });
});

describe('malformed JSON', () => {
  it('names where it failed without quoting the body, which may hold a password', async () => {
    for (const body of ['Hunter2Secret', '{"password":Hunter2Secret}', '{"password":"Hunter2Secret"']) {
      const reply = await call(app.url, '/auth/user', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(reply.status).toBe(400);
      expect(reply.body.reason).toMatch(/^Malformed JSON body: /);
      expect(reply.body.reason).not.toMatch(/Hunter2/);
    }
  });
});

describe('an account’s email addresses', () => {
  it('are at most 10, on sign-up and update (a rule of the users service, whichever transport)', async () => {
    const addresses = (count: number, tag: string) =>
      Array.from({ length: count }, (_, index) => `${tag}${index}-${Date.now()}@example.org`);
    const ten = addresses(10, 'ten');
    const update = (emails: string[]) =>
      call(app.url, '/auth/user', {
        method: 'PUT',
        token: alice.token,
        json: { updates: { emails, currentPassword: alice.password } },
      });
    expect((await update(ten)).body.emails).toEqual(ten);
    const eleven = addresses(11, 'eleven');
    const refusal = { code: 400, reason: 'emails may hold at most 10 addresses', error: 0 };
    expect(await update(eleven)).toMatchObject({ status: 400, body: refusal });
    const signUpReply = await call(app.url, '/auth/user', {
      method: 'POST',
      json: { username: eleven[0], emails: eleven, password: 'long-enough-1' },
    });
    expect(signUpReply).toMatchObject({ status: 400, body: refusal });
    expect((await call(app.url, '/auth/user', { token: alice.token })).body.emails).toEqual(ten);
  });
});
