import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt } from 'jose';
import { passwordGrant, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call, graphql } from '../support/http';
import { realmSigningKey, signAccessToken, strangerKey } from '../support/tokens';

let app: TestApp;
let alice: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  alice = await signUp(app, 'alice');
});
afterAll(async () => {
  await app?.stop();
});

/** Every bad request must leave the account exactly as it was. */
async function unchanged(action: () => Promise<void>) {
  const before = (await call(app.url, '/auth/user', { token: alice.token })).body;
  await action();
  expect((await call(app.url, '/auth/user', { token: alice.token })).body).toEqual(before);
}

describe('malformed bodies', () => {
  it('answers malformed JSON with 400 naming it', async () =>
    unchanged(async () => {
      const reply = await call(app.url, '/auth/user', {
        method: 'PUT',
        token: alice.token,
        headers: { 'content-type': 'application/json' },
        body: '{"updates": {',
      });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ code: 400, reason: expect.stringMatching(/^Malformed JSON body/), error: 0 });
    }));

  it('answers a body that is not a JSON object with 400', async () =>
    unchanged(async () => {
      for (const body of ['[1,2]', '"text"', 'null']) {
        const reply = await call(app.url, '/auth/user', {
          method: 'PUT',
          token: alice.token,
          headers: { 'content-type': 'application/json' },
          body,
        });
        expect(reply.status).toBe(400);
        expect(reply.body.reason).toMatch(/must be a JSON object/);
      }
    }));

  it('answers a wrong content type with 415', async () =>
    unchanged(async () => {
      const reply = await call(app.url, '/auth/user', {
        method: 'PUT',
        token: alice.token,
        headers: { 'content-type': 'text/plain' },
        body: '{"updates":{}}',
      });
      expect(reply.status).toBe(415);
      expect(reply.body.reason).toMatch(/text\/plain.*application\/json/);
    }));

  it('answers a JSON body over 1 MiB with 413', async () =>
    unchanged(async () => {
      const huge = JSON.stringify({ updates: { username: `${'a'.repeat(1024 * 1024)}@example.org` } });
      const reply = await call(app.url, '/auth/user', {
        method: 'PUT',
        token: alice.token,
        headers: { 'content-type': 'application/json' },
        body: huge,
      });
      expect(reply.status).toBe(413);
      expect(reply.body.reason).toMatch(/larger than/);
    }));

  it('answers a body that does not match its Content-Encoding with 400, on REST and on GraphQL', async () =>
    unchanged(async () => {
      const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
      const rest = await call(app.url, '/auth/user', {
        method: 'PUT',
        token: alice.token,
        headers,
        body: '{"updates":{"termsAccepted":"2020-01-01T00:00:00Z"}}',
      });
      expect(rest.status).toBe(400);
      expect(rest.body).toEqual({ code: 400, reason: expect.stringMatching(/Content-Encoding/), error: 0 });
      const gql = await call(app.url, '/graphql', {
        token: alice.token,
        headers,
        body: '{"query":"mutation { updateMe(input: {termsAccepted: \\"2020-01-01T00:00:00Z\\"}) { user { userId } } }"}',
      });
      expect(gql.status).toBe(400);
      expect(gql.body.errors[0]).toMatchObject({
        message: expect.stringMatching(/Content-Encoding/),
        extensions: { code: 'BAD_USER_INPUT', requestId: expect.any(String) },
      });
    }));

  it('answers wrong field types with 400 naming the field', async () =>
    unchanged(async () => {
      const reply = await call(app.url, '/auth/user', {
        method: 'PUT',
        token: alice.token,
        json: { updates: { emailVerified: 'yes' } },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.reason).toMatch(/emailVerified/);
      const date = await call(app.url, '/auth/user', {
        method: 'PUT',
        token: alice.token,
        json: { updates: { termsAccepted: 'yesterday' } },
      });
      expect(date.status).toBe(400);
      expect(date.body.reason).toMatch(/termsAccepted/);
    }));
});

describe('wrong JSON types are refused, never coerced', () => {
  const email = uniqueEmail('typed');
  const signUpBody = { username: email, emails: [email], password: 'long-enough-1' };

  it.each([
    ['emails as a string', { emails: email }, /"emails" must be a list of strings/],
    ['roles as a string', { roles: 'clinic' }, /"roles" must be a list of strings/],
    ['emails with a number', { emails: [email, 7] }, /"emails" must be a list of strings/],
    ['username as a list', { username: [email] }, /"username" must be a string/],
    ['password as a number', { password: 12345678 }, /"password" must be a string/],
  ])('at sign-up: %s', async (_case, change, reason) => {
    const reply = await call(app.url, '/auth/user', { json: { ...signUpBody, ...change } });
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toMatch(reason);
    const login = await call(app.url, '/auth/login', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${email}:long-enough-1`).toString('base64')}` },
    });
    expect(login.status).toBe(401);
  });

  it.each([
    ['wrapped emails as a string', { updates: { emails: 'a-new@example.org' } }, /"emails" must be a list/],
    ['wrapped roles as a string', { updates: { roles: 'clinic' } }, /"roles" must be a list/],
    ['wrapped username as a number', { updates: { username: 42 } }, /"username" must be a string/],
    ['flat emails as a string', { emailVerified: false, emails: 'a-new@example.org' }, /"emails" must be a list/],
    [
      'flat emailVerified null',
      { emailVerified: null, termsAccepted: '2020-01-01T00:00:00Z' },
      /"emailVerified" must be a boolean/,
    ],
    [
      'flat emailVerified as a string',
      { emailVerified: 'false', termsAccepted: '2020-01-01T00:00:00Z' },
      /"emailVerified" must be a boolean/,
    ],
  ])('on update: %s', async (_case, body, reason) =>
    unchanged(async () => {
      const reply = await call(app.url, '/auth/user', { method: 'PUT', token: alice.token, json: body });
      expect(reply.status).toBe(400);
      expect(reply.body.reason).toMatch(reason);
    }),
  );

  it('when creating a custodial account', async () => {
    const groups = () => call(app.url, `/access/groups/${alice.userid}`, { token: alice.token });
    const before = (await groups()).body;
    const reply = await call(app.url, `/auth/user/${alice.userid}/user`, {
      token: alice.token,
      json: { emails: 'kid@example.org' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toMatch(/"emails" must be a list of strings/);
    expect((await groups()).body).toEqual(before);
  });
});

describe('bad bodies on /graphql', () => {
  const post = (headers: Record<string, string>, body: string) =>
    call(app.url, '/graphql', { token: alice.token, headers, body });
  const mutation = 'mutation { updateMe(input: {termsAccepted: \\"2020-01-01T00:00:00Z\\"}) { user { userId } } }';

  it('answers malformed JSON with 400', async () =>
    unchanged(async () => {
      const reply = await post({ 'content-type': 'application/json' }, `{"query":"${mutation}"`);
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0]).toMatchObject({
        message: expect.stringMatching(/^Malformed JSON body/),
        extensions: { code: 'BAD_USER_INPUT', requestId: expect.any(String) },
      });
    }));

  it('answers a content type other than JSON (or multipart) with 415', async () =>
    unchanged(async () => {
      const reply = await post({ 'content-type': 'text/plain' }, `{"query":"${mutation}"}`);
      expect(reply.status).toBe(415);
      expect(reply.body.errors[0]).toMatchObject({
        message: expect.stringMatching(/text\/plain.*application\/json/),
        extensions: { code: 'BAD_USER_INPUT', requestId: expect.any(String) },
      });
    }));

  it('answers a body over 1 MiB with 413', async () =>
    unchanged(async () => {
      const padding = 'a'.repeat(1024 * 1024);
      const reply = await post(
        { 'content-type': 'application/json' },
        `{"query":"${mutation}","variables":{"x":"${padding}"}}`,
      );
      expect(reply.status).toBe(413);
      expect(reply.body.errors[0]).toMatchObject({
        message: expect.stringMatching(/larger than the limit of 1048576 bytes/),
        extensions: { code: 'PAYLOAD_TOO_LARGE', requestId: expect.any(String) },
      });
    }));
});

describe('bad field values through GraphQL', () => {
  const signUpMutation = 'mutation ($i: SignUpInput!) { signUp(input: $i) { session { token } } }';

  it.each([
    ['duplicate emails', (email: string) => ({ emails: [email, email.toUpperCase()] }), /more than once/],
    ['an unknown role', () => ({ roles: ['superuser'] }), /roles contains "superuser"/],
  ])('refuses %s at signUp with BAD_USER_INPUT and creates no account', async (_case, change, reason) => {
    const email = uniqueEmail('gqlbad');
    const input = { username: email, emails: [email], password: 'long-enough-1', ...change(email) };
    const reply = await graphql(app.url, signUpMutation, { i: input });
    expect(reply.body.data).toBeNull();
    expect(reply.body.errors[0]).toMatchObject({
      message: expect.stringMatching(reason),
      extensions: { code: 'BAD_USER_INPUT', field: expect.any(String) },
    });
    const login = await graphql(app.url, 'mutation ($i: LogInInput!) { logIn(input: $i) { session { token } } }', {
      i: { username: email, password: 'long-enough-1' },
    });
    expect(login.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it.each([
    ['duplicate emails', { emails: ['dup@example.org', 'DUP@example.org'] }, /more than once/],
    ['an unknown role', { roles: ['superuser'] }, /roles contains "superuser"/],
  ])('refuses %s at updateMe with BAD_USER_INPUT and changes nothing', async (_case, input, reason) =>
    unchanged(async () => {
      const reply = await graphql(
        app.url,
        'mutation ($i: UpdateMeInput!) { updateMe(input: $i) { user { userId } } }',
        { i: input },
        alice.token,
      );
      expect(reply.body.errors[0]).toMatchObject({
        message: expect.stringMatching(reason),
        extensions: { code: 'BAD_USER_INPUT' },
      });
    }),
  );
});

describe('bad field values on update', () => {
  it.each([
    ['an email under 6 characters', { emails: ['a@b.c'] }, /at least 6/],
    ['duplicate emails', { emails: ['x@example.org', 'X@example.org'] }, /more than once/],
    ['an unknown role', { roles: ['superuser'] }, /roles contains "superuser"/],
    ['an empty email list on a real account', { emails: [] }, /at least one email/],
  ])('answers %s with 400', async (_case, updates, reason) =>
    unchanged(async () => {
      const reply = await call(app.url, '/auth/user', { method: 'PUT', token: alice.token, json: { updates } });
      expect(reply.status).toBe(400);
      expect(reply.body.reason).toMatch(reason);
    }),
  );
});

describe('credentials', () => {
  const attempts = () => ({
    rest: (token: string) => call(app.url, '/auth/user', { token }),
    graphql: (token: string) => graphql(app.url, '{ me { userId } }', {}, token),
  });

  async function refusedEverywhere(token: string, reason: RegExp) {
    const rest = await attempts().rest(token);
    expect(rest.status).toBe(401);
    expect(rest.body.reason).toMatch(reason);
    const gql = await attempts().graphql(token);
    expect(gql.status).toBe(401);
    expect(gql.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(reason),
      extensions: { code: 'UNAUTHENTICATED' },
    });
  }

  it('refuses a missing token with 401 on REST and UNAUTHENTICATED on GraphQL', async () => {
    expect((await call(app.url, '/auth/user')).status).toBe(401);
    const gql = await graphql(app.url, '{ me { userId } }');
    expect(gql.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a token that is not a JWT', () => refusedEverywhere('definitely-not-a-token', /malformed/));

  it('refuses a forged token (right claims, wrong key)', async () => {
    const real = await realmSigningKey(app, 'dev1');
    const forged = await signAccessToken(strangerKey(real.kid!), {
      iss: `${app.url}/realms/dev1`,
      sub: alice.userid,
      sid: 'x',
    });
    await refusedEverywhere(forged, /signature is invalid/);
  });

  it('refuses an expired token', async () => {
    const key = await realmSigningKey(app, 'dev1');
    const past = Math.floor(Date.now() / 1000) - 3600;
    const expired = await signAccessToken(key, {
      iss: `${app.url}/realms/dev1`,
      sub: alice.userid,
      iat: past - 300,
      exp: past,
    });
    await refusedEverywhere(expired, /expired/);
  });

  it("refuses a token that claims one realm but is signed with another realm's key", async () => {
    const qaKey = await realmSigningKey(app, 'qa1');
    const crossed = await signAccessToken(qaKey, { iss: `${app.url}/realms/dev1`, sub: alice.userid });
    await refusedEverywhere(crossed, /signature is invalid/);
  });

  it('refuses a token from an issuer this service does not know', async () => {
    const key = await realmSigningKey(app, 'dev1');
    const foreign = await signAccessToken(key, { iss: 'https://elsewhere.example/realms/dev1', sub: alice.userid });
    await refusedEverywhere(foreign, /not issued by this server/);
  });

  it('refuses an ID token used as an access token', async () => {
    const grant = await passwordGrant(app, 'dev1', alice.email, alice.password);
    expect(decodeJwt(grant.body.id_token).aud).toBe('islet-dev');
    await refusedEverywhere(grant.body.id_token, /not an access token/);
  });

  it('refuses wrong Basic credentials at /auth/login', async () => {
    const reply = await call(app.url, '/auth/login', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${alice.email}:nope-nope`).toString('base64')}` },
    });
    expect(reply.status).toBe(401);
  });
});

describe('routes', () => {
  it('answers unknown routes with a JSON 404', async () => {
    const reply = await call(app.url, '/no/such/thing');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ code: 404, reason: 'No route for GET /no/such/thing', error: 0 });
  });

  it('answers unknown paths under a known realm with the same JSON 404 as an unknown realm', async () => {
    for (const [method, path] of [
      ['GET', '/realms/dev1/foo'],
      ['POST', '/realms/qa1/protocol/openid-connect/nothing'],
      ['GET', '/realms/dev1/protocol/openid-connect/token'],
    ]) {
      const reply = await call(app.url, path, { method });
      expect(reply.status).toBe(404);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.body).toEqual({ error: 'not_found', error_description: `No route for ${method} ${path}` });
    }
  });

  it('answers an unknown realm with 404 on every realm path', async () => {
    for (const path of [
      '/realms/nowhere/.well-known/openid-configuration',
      '/realms/nowhere/protocol/openid-connect/certs',
    ]) {
      const reply = await call(app.url, path);
      expect(reply.status).toBe(404);
      expect(reply.body.error_description).toMatch(/does not exist/);
    }
  });
});
