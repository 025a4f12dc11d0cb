import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { passwordGrant, serverToken, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';

let app: TestApp;
let alice: TestAccount;

const basic = (login: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
});

beforeAll(async () => {
  app = await startTestApp();
  alice = await signUp(app, 'alice');
});
afterAll(async () => {
  await app?.stop();
});

describe('POST /auth/login', () => {
  it('answers the user body and a session token for good Basic credentials', async () => {
    const reply = await call(app.url, '/auth/login', { method: 'POST', headers: basic(alice.email, alice.password) });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ userid: alice.userid, username: alice.email });
    const token = reply.headers.get('x-tidepool-session-token')!;
    expect((await call(app.url, '/auth/user', { token })).body.userid).toBe(alice.userid);
  });

  it('treats the login name case-insensitively', async () => {
    const reply = await call(app.url, '/auth/login', {
      method: 'POST',
      headers: basic(alice.email.toUpperCase(), alice.password),
    });
    expect(reply.status).toBe(200);
  });

  it('answers 401 for a wrong password or an unknown account, without saying which', async () => {
    const wrong = await call(app.url, '/auth/login', {
      method: 'POST',
      headers: basic(alice.email, 'not-the-password'),
    });
    const unknown = await call(app.url, '/auth/login', {
      method: 'POST',
      headers: basic('nobody@example.org', 'not-the-password'),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ code: 401, reason: 'No user matched the given details', error: 0 });
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers.get('x-tidepool-session-token')).toBeNull();
  });

  it('answers 400 when the Basic credentials are missing or malformed', async () => {
    for (const headers of [
      {},
      { authorization: 'Basic !!!' },
      basic(alice.email, ''),
      { authorization: 'Bearer abc' },
    ]) {
      const reply = await call(app.url, '/auth/login', { method: 'POST', headers });
      expect(reply.status).toBe(400);
      expect(reply.body.reason).toBe('Missing id and/or password');
    }
  });
});

describe('GET /auth/login, GET /auth/token and POST /auth/logout', () => {
  it('refreshes a session into a new working token and describes it', async () => {
    const refreshed = await call(app.url, '/auth/login', { token: alice.token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body).toEqual({ userid: alice.userid, isserver: false, expires_at: expect.any(Number) });
    const token = refreshed.headers.get('x-tidepool-session-token')!;
    expect(token).not.toBe(alice.token);
    const info = await call(app.url, '/auth/token', { token });
    expect(info.body).toMatchObject({ userid: alice.userid, isserver: false });
    expect(info.body.expires_at * 1000).toBeGreaterThan(Date.now());
    expect(info.body.expires_at * 1000).toBeLessThanOrEqual(Date.now() + 600_000);
  });

  it('ends the session at logout: every token of it stops working at once', async () => {
    const login = await call(app.url, '/auth/login', { method: 'POST', headers: basic(alice.email, alice.password) });
    const first = login.headers.get('x-tidepool-session-token')!;
    const second = (await call(app.url, '/auth/login', { token: first })).headers.get('x-tidepool-session-token')!;
    expect((await call(app.url, '/auth/logout', { method: 'POST', token: second })).status).toBe(200);
    for (const token of [first, second]) {
      const reply = await call(app.url, '/auth/user', { token });
      expect(reply.status).toBe(401);
      expect(reply.body.reason).toMatch(/Session has ended/);
    }
    expect((await call(app.url, '/auth/user', { token: alice.token })).status).toBe(200);
  });

  it('answers 200 to logout without a token or with a dead one', async () => {
    expect((await call(app.url, '/auth/logout', { method: 'POST' })).status).toBe(200);
    expect((await call(app.url, '/auth/logout', { method: 'POST', token: 'garbage' })).status).toBe(200);
  });

  it('answers 401 to GET /auth/token without a token', async () => {
    const reply = await call(app.url, '/auth/token');
    expect(reply.status).toBe(401);
  });
});

describe('a password change', () => {
  const refreshGrant = (refreshToken: string) =>
    call(app.url, '/realms/qa2/protocol/openid-connect/token', {
      form: {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: 'islet-dev',
        client_secret: app.devClientSecret,
      },
    });

  it('ends every other session and refresh token of the account; the session that made it keeps working', async () => {
    const dave = await signUp(app, 'dave');
    const legacy = (
      await call(app.url, '/auth/login', { method: 'POST', headers: basic(dave.email, dave.password) })
    ).headers.get('x-tidepool-session-token')!;
    const oidc = (await passwordGrant(app, 'qa2', dave.email, dave.password)).body;
    for (const token of [legacy, oidc.access_token])
      expect((await call(app.url, '/auth/user', { token })).status).toBe(200);

    const changed = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: dave.token,
      json: { updates: { password: 'changed-pass-1', currentPassword: dave.password } },
    });
    expect(changed.status).toBe(200);

    for (const token of [legacy, oidc.access_token]) {
      const reply = await call(app.url, '/auth/user', { token });
      expect(reply.status).toBe(401);
      expect(reply.body.reason).toMatch(/Session has ended/);
    }
    expect((await call(app.url, '/auth/login', { token: legacy })).status).toBe(401);
    expect((await refreshGrant(oidc.refresh_token)).body.error).toBe('invalid_grant');

    expect((await call(app.url, '/auth/user', { token: dave.token })).status).toBe(200);
    const refreshed = await call(app.url, '/auth/login', { token: dave.token });
    expect(refreshed.status).toBe(200);
    const login = await call(app.url, '/auth/login', { method: 'POST', headers: basic(dave.email, 'changed-pass-1') });
    expect(login.status).toBe(200);
  });

  it('made by a server token ends every session of the account', async () => {
    const erin = await signUp(app, 'erin');
    const oidc = (await passwordGrant(app, 'qa2', erin.email, erin.password)).body;
    const changed = await call(app.url, `/auth/user/${erin.userid}`, {
      method: 'PUT',
      token: await serverToken(app),
      json: { updates: { password: 'reset-by-server-1' } },
    });
    expect(changed.status).toBe(200);
    for (const token of [erin.token, oidc.access_token])
      expect((await call(app.url, '/auth/user', { token })).status).toBe(401);
    expect((await refreshGrant(oidc.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('changes nothing, and ends no session, when the current password is wrong', async () => {
    const frank = await signUp(app, 'frank');
    const other = (await passwordGrant(app, 'qa2', frank.email, frank.password)).body;
    const refused = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: frank.token,
      json: { updates: { password: 'changed-pass-1', currentPassword: 'not-the-password' } },
    });
    expect(refused.status).toBe(403);
    expect((await call(app.url, '/auth/user', { token: other.access_token })).status).toBe(200);
    expect(
      (await call(app.url, '/auth/login', { method: 'POST', headers: basic(frank.email, frank.password) })).status,
    ).toBe(200);
  });
});

describe('POST /auth/serverlogin', () => {
  it('gives a server token for the server secret', async () => {
    const token = await serverToken(app);
    const info = await call(app.url, '/auth/token', { token });
    expect(info.body).toMatchObject({ isserver: true, userid: 'islet-server' });
    const other = await call(app.url, `/auth/token/${alice.token}`, { token });
    expect(other.body).toMatchObject({ userid: alice.userid, isserver: false });
  });

  it('answers 401 "Wrong password" for a wrong secret and 400 when a header is missing', async () => {
    const wrong = await call(app.url, '/auth/serverlogin', {
      method: 'POST',
      headers: { 'x-tidepool-server-name': 'x', 'x-tidepool-server-secret': 'not-the-secret' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.reason).toBe('Wrong password');
    const missing = await call(app.url, '/auth/serverlogin', {
      method: 'POST',
      headers: { 'x-tidepool-server-secret': app.serverSecret },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.reason).toBe('Missing id and/or password');
  });

  it('lets only server tokens inspect other tokens', async () => {
    const reply = await call(app.url, `/auth/token/${alice.token}`, { token: alice.token });
    expect(reply.status).toBe(403);
  });
});

describe('an unusable token on operations that do not act as the caller', () => {
  const gql = (token: string, query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
    call(app.url, '/graphql', { token, json: { query, variables, operationName } });

  it('is treated as no token by GraphQL, as by REST: logOut, signUp and logIn run anonymously', async () => {
    expect((await call(app.url, '/auth/logout', { method: 'POST', token: 'garbage' })).status).toBe(200);
    const logOut = await gql('garbage', 'mutation { logOut { loggedOut } }');
    expect(logOut.status).toBe(200);
    expect(logOut.body).toEqual({ data: { logOut: { loggedOut: true } } });

    const email = uniqueEmail('lenient');
    const signUp = await gql('garbage', 'mutation ($i: SignUpInput!) { signUp(input: $i) { user { username } } }', {
      i: { username: email, emails: [email], password: 'long-enough-1' },
    });
    expect(signUp.body).toEqual({ data: { signUp: { user: { username: email } } } });
    const logIn = await gql('garbage', 'mutation ($i: LogInInput!) { logIn(input: $i) { session { token } } }', {
      i: { username: email, password: 'long-enough-1' },
    });
    expect(logIn.body.data.logIn.session.token).toEqual(expect.any(String));
    const serverLogIn = await gql(
      'garbage',
      'mutation ($s: String!) { serverLogIn(input: { name: "tests", secret: $s }) { session { token } } }',
      { s: app.serverSecret },
    );
    expect(serverLogIn.body.data.serverLogIn.session.token).toEqual(expect.any(String));
  });

  it('treats the token of an ended session as none at logOut, on both transports', async () => {
    const login = await call(app.url, '/auth/login', { method: 'POST', headers: basic(alice.email, alice.password) });
    const ended = login.headers.get('x-tidepool-session-token')!;
    expect((await call(app.url, '/auth/logout', { method: 'POST', token: ended })).status).toBe(200);
    expect((await call(app.url, '/auth/logout', { method: 'POST', token: ended })).status).toBe(200);
    expect((await gql(ended, 'mutation { logOut { loggedOut } }')).body).toEqual({
      data: { logOut: { loggedOut: true } },
    });
  });

  it('still answers 401 when any root field acts as the caller', async () => {
    for (const [query, operationName] of [
      ['{ me { userId } }', undefined],
      ['mutation { logOut { loggedOut } refreshSession { session { token } } }', undefined],
      ['mutation Out { logOut { loggedOut } } query Me { me { userId } }', 'Me'],
      ['mutation { ...Out } fragment Out on Mutation { logOut { loggedOut } }', undefined],
      ['mutation { logOut', undefined],
    ]) {
      const reply = await gql('garbage', query!, {}, operationName);
      expect(reply.status).toBe(401);
      expect(reply.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
    expect(
      (await gql('garbage', 'mutation Out { logOut { loggedOut } } query Me { me { userId } }', {}, 'Out')).body,
    ).toEqual({
      data: { logOut: { loggedOut: true } },
    });
  });
});
