import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { signUp, type TestAccount } from '../support/accounts';
import { DEV_CLIENT_SECRET, startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { jsonFile } from '../support/files';
import { call } from '../support/http';
import { client, relyingParty } from '../support/relying-party';
import { UserAgent } from '../support/user-agent';

/** Every grant with each parameter missing or wrong answers the RFC 6749 error, never a 500. */
let app: TestApp;
let alice: TestAccount;
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  const clients = jsonFile('clients.json', {
    dev1: [
      {
        client_id: 'spa',
        grant_types: ['authorization_code', 'refresh_token'],
        redirect_uris: ['http://127.0.0.1:9/spa'],
      },
    ],
  });
  app = await startTestApp({ OIDC_CLIENTS_FILE: clients });
  alice = await signUp(app, 'alice');
});
afterAll(async () => {
  await app?.stop();
});

const token = (form: Record<string, string>, realm = 'dev1') =>
  call(app.url, `/realms/${realm}/protocol/openid-connect/token`, { form });
const dev = (form: Record<string, string>) => ({ client_id: 'islet-dev', client_secret: DEV_CLIENT_SECRET, ...form });

/** A fresh authorization code (with its PKCE verifier) for alice. */
async function freshCode(): Promise<{ code: string; verifier: string }> {
  const config = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
  const verifier = client.randomPKCECodeVerifier();
  const agent = new UserAgent();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const page = await agent.follow(url.href, REDIRECT);
  const back = await agent.submit(page, { username: alice.email, password: alice.password }, REDIRECT);
  return { code: new URL(back.location!).searchParams.get('code')!, verifier };
}

function expectOAuthError(reply: { status: number; body: { error?: string } }, status: number, error: string) {
  expect({ status: reply.status, error: reply.body.error }).toEqual({ status, error });
}

describe('authorization_code grant', () => {
  const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
    token(dev({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, ...extra }));

  it.each([
    ['no code', (code: string, verifier: string) => exchange(code, verifier, { code: '' }), 400, 'invalid_request'],
    ['an unknown code', (_code: string, verifier: string) => exchange('not-a-code', verifier), 400, 'invalid_grant'],
    ['no PKCE verifier', (code: string) => exchange(code, '', { code_verifier: '' }), 400, 'invalid_grant'],
    ['a wrong PKCE verifier', (code: string) => exchange(code, client.randomPKCECodeVerifier()), 400, 'invalid_grant'],
    [
      'another redirect_uri',
      (code: string, verifier: string) => exchange(code, verifier, { redirect_uri: 'http://127.0.0.1:9/other' }),
      400,
      'invalid_grant',
    ],
    [
      'no redirect_uri',
      (code: string, verifier: string) => exchange(code, verifier, { redirect_uri: '' }),
      400,
      'invalid_request',
    ],
    [
      'a wrong client secret',
      (code: string, verifier: string) => exchange(code, verifier, { client_secret: 'wrong-secret-0123456789' }),
      401,
      'invalid_client',
    ],
  ])('refuses %s', async (_case, attempt, status, error) => {
    const { code, verifier } = await freshCode();
    expectOAuthError(await attempt(code, verifier), status, error);
  });

  it('refuses a used code, and revokes what the first use issued', async () => {
    const { code, verifier } = await freshCode();
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    expectOAuthError(await exchange(code, verifier), 400, 'invalid_grant');
    expect((await call(app.url, '/auth/user', { token: first.body.access_token })).status).toBe(401);
  });

  it('refuses an expired code', async () => {
    const { code, verifier } = await freshCode();
    const db = new pg.Client({ connectionString: app.database.url });
    await db.connect();
    await db.query(
      `update oidc_records set expires_at = now() - interval '1 second' where model = 'AuthorizationCode'`,
    );
    await db.end();
    expectOAuthError(await exchange(code, verifier), 400, 'invalid_grant');
  });
});

describe('the other grants', () => {
  it.each([
    ['refresh_token without refresh_token', dev({ grant_type: 'refresh_token' }), 400, 'invalid_request'],
    [
      'refresh_token with a wrong one',
      dev({ grant_type: 'refresh_token', refresh_token: 'nope' }),
      400,
      'invalid_grant',
    ],
    ['password without username', dev({ grant_type: 'password', password: 'x-password' }), 400, 'invalid_request'],
    ['password without password', dev({ grant_type: 'password', username: 'a@example.org' }), 400, 'invalid_request'],
    [
      'password with a wrong one',
      dev({ grant_type: 'password', username: 'a@example.org', password: 'x-password' }),
      400,
      'invalid_grant',
    ],
    [
      'client_credentials with a wrong secret',
      { grant_type: 'client_credentials', client_id: 'islet-dev', client_secret: 'nope-0123456789abcdef' },
      401,
      'invalid_client',
    ],
    ['client_credentials without client', { grant_type: 'client_credentials' }, 400, 'invalid_request'],
    [
      'client_credentials from a public client',
      { grant_type: 'client_credentials', client_id: 'spa' },
      400,
      'unauthorized_client',
    ],
    ['an unknown grant type', dev({ grant_type: 'implicit' }), 400, 'unsupported_grant_type'],
    [
      'a scope nobody knows',
      dev({ grant_type: 'client_credentials', scope: 'admin:everything' }),
      400,
      'invalid_scope',
    ],
    [
      'a password grant for a scope nobody knows',
      dev({ grant_type: 'password', username: 'a@example.org', password: 'x-password', scope: 'openid admin' }),
      400,
      'invalid_scope',
    ],
  ])('refuses %s', async (_case, form, status, error) => {
    expectOAuthError(await token(form), status, error);
  });

  it('answers an unknown realm with a JSON 404', async () => {
    const reply = await token(dev({ grant_type: 'client_credentials' }), 'nowhere');
    expect(reply.status).toBe(404);
  });

  it('refuses a token request that is not form-encoded', async () => {
    const reply = await call(app.url, '/realms/dev1/protocol/openid-connect/token', {
      json: dev({ grant_type: 'client_credentials' }),
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('invalid_request');
  });
});

describe('form bodies the token endpoints cannot read', () => {
  const FORM = 'application/x-www-form-urlencoded';
  const credentials = `client_id=islet-dev&client_secret=${DEV_CLIENT_SECRET}`;
  const bodies: [string, Record<string, string>, string | Buffer, number, RegExp][] = [
    ['a 2 MB form', { 'content-type': FORM }, `${credentials}&token=${'a'.repeat(2 * 1024 * 1024)}`, 413, /larger/],
    ['charset=latin1', { 'content-type': `${FORM}; charset=latin1` }, `${credentials}&token=x`, 400, /latin1/],
    [
      'a gzip body that is not gzip',
      { 'content-type': FORM, 'content-encoding': 'gzip' },
      `${credentials}&token=x`,
      400,
      /Content-Encoding "gzip"/,
    ],
    [
      'a real gzip body (forms are sent uncompressed)',
      { 'content-type': FORM, 'content-encoding': 'gzip' },
      gzipSync(`${credentials}&token=x`),
      400,
      /Content-Encoding "gzip"/,
    ],
  ];
  const endpoints = ['token', 'userinfo', 'token/introspect', 'revoke'];
  const cases = endpoints.flatMap((endpoint) => bodies.map((body) => [endpoint, ...body] as const));

  it.each(cases)('%s answers %s with an RFC 6749 error', async (endpoint, _case, headers, body, status, reason) => {
    const reply = await call(app.url, `/realms/dev1/protocol/openid-connect/${endpoint}`, {
      method: 'POST',
      headers,
      body,
    });
    expect(reply.status).toBe(status);
    expect(reply.body).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(reason) });
  });

  it.each([
    ['a form over 16 kB', { 'content-type': FORM }, `username=${'a'.repeat(20_000)}`, 413],
    ['a gzip body that is not gzip', { 'content-type': FORM, 'content-encoding': 'gzip' }, 'username=a', 400],
    ['charset=latin1', { 'content-type': `${FORM}; charset=latin1` }, 'username=a', 415],
  ])('the login page answers %s with a page saying so', async (_case, headers, body, status) => {
    const reply = await call(app.url, '/realms/dev1/login-actions/some-uid/login', { method: 'POST', headers, body });
    expect(reply.status).toBe(status);
    expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
    expect(reply.text).toMatch(/form/);
  });

  it('answers a form sent in chunks that grows past the limit with 413', async () => {
    const chunks = [`${credentials}&token=`, 'a'.repeat(64 * 1024)];
    const body = new ReadableStream({
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(chunk));
      },
    });
    const reply = await fetch(`${app.url}/realms/dev1/protocol/openid-connect/token/introspect`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(reply.status).toBe(413);
    expect(await reply.json()).toEqual({
      error: 'invalid_request',
      error_description: expect.stringMatching(/larger/),
    });
  });
});

describe('authorization endpoint', () => {
  const authorize = (params: Record<string, string>) =>
    new UserAgent().request(`${app.url}/realms/dev1/protocol/openid-connect/auth?${new URLSearchParams(params)}`);
  const valid = {
    client_id: 'islet-dev',
    response_type: 'code',
    scope: 'openid',
    redirect_uri: REDIRECT,
    code_challenge: 'x'.repeat(43),
    code_challenge_method: 'S256',
  };

  it.each([
    ['no client_id', { ...valid, client_id: '' }],
    ['an unknown client', { ...valid, client_id: 'nobody' }],
    ['an unregistered redirect_uri', { ...valid, redirect_uri: 'http://evil.example/cb' }],
    ['a scope without openid', { ...valid, scope: 'email' }],
  ])('shows an error page without redirecting for %s', async (_case, params) => {
    const hop = await authorize(params);
    expect(hop.status).toBe(400);
    expect(hop.location).toBeNull();
  });

  it.each([
    ['an unsupported response_type', { ...valid, response_type: 'token' }, 'unsupported_response_type'],
    ['the plain PKCE method', { ...valid, code_challenge_method: 'plain' }, 'invalid_request'],
    ['an unknown prompt', { ...valid, prompt: 'always' }, 'invalid_request'],
  ])('redirects back with an error for %s', async (_case, params, error) => {
    const hop = await authorize(params);
    expect(hop.status).toBeLessThan(400);
    const answer = new URL(hop.location!);
    expect(answer.searchParams.get('error') ?? new URLSearchParams(answer.hash.slice(1)).get('error')).toBe(error);
  });
});

describe('NUL characters in OIDC parameters', () => {
  const FORM = 'application/x-www-form-urlencoded';
  const endpoint = (path: string) => `/realms/dev1/protocol/openid-connect/${path}`;
  const credentials = `client_id=islet-dev&client_secret=${DEV_CLIENT_SECRET}`;
  /** [endpoint, method, the parameter holding a NUL, the request's form or query]. */
  const cases: [string, 'POST' | 'GET', string, string][] = [
    ['token', 'POST', 'refresh_token', `grant_type=refresh_token&${credentials}&refresh_token=abc%00`],
    [
      'token',
      'POST',
      'code',
      `grant_type=authorization_code&${credentials}&code=abc%00&redirect_uri=${encodeURIComponent(REDIRECT)}`,
    ],
    ['token', 'POST', 'client_id', 'grant_type=client_credentials&client_id=islet%00&client_secret=x'],
    ['token', 'POST', 'password', `grant_type=password&${credentials}&username=a%40example.org&password=p%00w`],
    ['token', 'POST', 'scope', `grant_type=client_credentials&${credentials}&scope=openid%00`],
    ['token', 'POST', 'grant_type', `grant_type=password%00&${credentials}`],
    ['token', 'POST', 'subject_token', `grant_type=refresh_token&${credentials}&refresh_token=a&subject_token=%00`],
    ['token/introspect', 'POST', 'token', `${credentials}&token=abc%00`],
    ['token/introspect', 'POST', 'client_id', 'client_id=islet-dev%00&client_secret=x&token=abc'],
    ['revoke', 'POST', 'token', `${credentials}&token=abc%00`],
    ['revoke', 'POST', 'token_type_hint', `${credentials}&token=abc&token_type_hint=refresh_token%00`],
    ['userinfo', 'POST', 'access_token', 'access_token=abc%00'],
    ['userinfo', 'GET', 'access_token', 'access_token=abc%00'],
    ['logout', 'POST', 'id_token_hint', 'id_token_hint=abc%00'],
    ['logout', 'POST', 'post_logout_redirect_uri', 'client_id=islet-dev&post_logout_redirect_uri=http%3A%2F%2Fx%00'],
    ['logout', 'GET', 'client_id', 'client_id=islet-dev%00'],
    ['logout/confirm', 'POST', 'xsrf', 'xsrf=abc%00&logout=yes'],
    ['auth', 'POST', 'client_id', 'client_id=islet-dev%00&response_type=code&scope=openid'],
    [
      'auth',
      'POST',
      'redirect_uri',
      `client_id=islet-dev&scope=openid&redirect_uri=${encodeURIComponent(REDIRECT)}%00`,
    ],
    ['auth', 'GET', 'client_id', 'client_id=islet-dev%00&response_type=code&scope=openid'],
    ['auth', 'GET', 'state', `client_id=islet-dev&response_type=code&scope=openid&state=s%00`],
  ];

  it.each(cases)(
    '%s (%s) refuses a NUL in %s with invalid_request naming it',
    async (path, method, parameter, params) => {
      const reply =
        method === 'POST'
          ? await call(app.url, endpoint(path), { method, headers: { 'content-type': FORM }, body: params })
          : await call(app.url, `${endpoint(path)}?${params}`, { headers: { accept: 'text/html' } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      expect(reply.body.error_description).toContain(parameter);
      expect(reply.body.error_description).toMatch(/must not contain NUL characters/);
    },
  );

  it('says so in the words of RFC 6749 for the token endpoint', async () => {
    const reply = await call(app.url, endpoint('token'), {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: 'grant_type=refresh_token&refresh_token=abc%00',
    });
    expect(reply.body).toEqual({
      error: 'invalid_request',
      error_description: "parameter 'refresh_token' must not contain NUL characters",
    });
  });

  it('refuses a NUL in a parameter name too', async () => {
    const reply = await call(app.url, endpoint('token'), {
      method: 'POST',
      headers: { 'content-type': FORM },
      body: `grant_type=client_credentials&${credentials}&sco%00pe=openid`,
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('invalid_request');
    expect(reply.body.error_description).toMatch(/must not contain NUL characters/);
  });

  it('treats a client id with a NUL in Basic credentials as an unknown client, never a 500', async () => {
    const basic = `Basic ${Buffer.from(`islet-dev\u0000:${DEV_CLIENT_SECRET}`).toString('base64')}`;
    for (const path of ['token', 'token/introspect', 'revoke']) {
      const reply = await call(app.url, endpoint(path), {
        method: 'POST',
        headers: { 'content-type': FORM, authorization: basic },
        body: path === 'token' ? 'grant_type=client_credentials' : 'token=abc',
      });
      // oidc-provider itself refuses the malformed id at the token endpoint (400); elsewhere it names no client.
      const expected = path === 'token' ? ['invalid_request', 'invalid_client'] : ['invalid_client'];
      expect({ path, status: reply.status, error: reply.body.error }).toEqual({
        path,
        status: reply.body.error === 'invalid_client' ? 401 : 400,
        error: expect.any(String),
      });
      expect(expected).toContain(reply.body.error);
    }
  });

  it('still reads a form without NUL as before: the token endpoint answers from the same body', async () => {
    const reply = await token(dev({ grant_type: 'password', username: alice.email, password: alice.password }));
    expect(reply.status).toBe(200);
    expect(reply.body.access_token).toEqual(expect.any(String));
  });
});

describe('the database away at the OIDC endpoints', () => {
  const UNAVAILABLE = {
    error: 'temporarily_unavailable',
    error_description: 'The database is unavailable; try again shortly',
  };

  /** Nothing about where the database lives reaches the client. */
  function expectNothingInternal(text: string) {
    const database = new URL(app.database.url);
    for (const secret of [database.hostname, database.port, database.pathname.slice(1), 'ECONNREFUSED', 'postgres'])
      expect(text).not.toContain(secret);
    expect(text).not.toMatch(/\/(?:home|tmp|work|usr)\//);
  }

  it('answers 503 temporarily_unavailable (JSON) or a 503 page (browsers), then recovers', async () => {
    const granted = await token(dev({ grant_type: 'password', username: alice.email, password: alice.password }));
    expect(granted.status).toBe(200);
    const refreshToken = granted.body.refresh_token as string;
    const config = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    const agent = new UserAgent();
    const loginPage = await agent.follow(
      client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      }).href,
      REDIRECT,
    );
    await app.database.setAvailable(false);
    try {
      const replies = {
        password: await token(dev({ grant_type: 'password', username: alice.email, password: alice.password })),
        refresh: await token(dev({ grant_type: 'refresh_token', refresh_token: refreshToken })),
        introspect: await call(app.url, '/realms/dev1/protocol/openid-connect/token/introspect', {
          form: dev({ token: refreshToken }),
        }),
        revoke: await call(app.url, '/realms/dev1/protocol/openid-connect/revoke', {
          form: dev({ token: refreshToken }),
        }),
        userinfo: await call(app.url, '/realms/dev1/protocol/openid-connect/userinfo', {
          headers: { authorization: `Bearer ${granted.body.access_token as string}` },
        }),
      };
      for (const [name, reply] of Object.entries(replies)) {
        expect({ name, status: reply.status, body: reply.body }).toEqual({ name, status: 503, body: UNAVAILABLE });
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(reply.headers.get('cache-control')).toBe('no-store');
        expectNothingInternal(reply.text);
      }
      const page = await new UserAgent().request(
        `${app.url}/realms/dev1/protocol/openid-connect/auth?${new URLSearchParams({
          client_id: 'islet-dev',
          response_type: 'code',
          scope: 'openid',
          redirect_uri: REDIRECT,
          code_challenge: 'x'.repeat(43),
          code_challenge_method: 'S256',
        })}`,
      );
      expect(page.status).toBe(503);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(page.location).toBeNull();
      expect(page.body).toContain('The database is unavailable; try again shortly');
      expectNothingInternal(page.body);
      const signIn = await agent.submit(loginPage, { username: alice.email, password: alice.password }, REDIRECT);
      expect(signIn.status).toBe(503);
      expect(signIn.headers.get('content-type')).toMatch(/^text\/html/);
      expect(signIn.body).toContain('The database is unavailable; try again shortly');
      expectNothingInternal(signIn.body);
    } finally {
      await app.database.setAvailable(true);
    }
    await eventually(
      async () =>
        (await token(dev({ grant_type: 'password', username: alice.email, password: alice.password }))).status === 200,
      'password grants succeed again once the database is back',
      5_000,
    );
  });
});
