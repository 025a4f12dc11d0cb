import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { jsonFile } from '../support/files';
import { freePort } from '../support/ports';
import { call } from '../support/http';
import { client, relyingParty } from '../support/relying-party';
import { UserAgent } from '../support/user-agent';

let app: TestApp;
let alice: TestAccount;
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  const clients = jsonFile('clients.json', {
    '*': [
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

/** Runs the browser part of the code flow; returns the redirect back to the client. */
async function authorize(
  agent: UserAgent,
  config: client.Configuration,
  extra: Record<string, string> = {},
  credentials?: TestAccount,
) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  const redirect = extra.redirect_uri ?? REDIRECT;
  let hop = await agent.follow(url.href, redirect);
  if (credentials && !hop.location?.startsWith(redirect)) {
    hop = await agent.submit(hop, { username: credentials.email, password: credentials.password }, redirect);
  }
  return { hop, verifier, state };
}

describe('discovery', () => {
  it('lists exactly what each realm supports', async () => {
    const document = (await call(app.url, '/realms/qa3/.well-known/openid-configuration')).body;
    const base = `${app.url}/realms/qa3/protocol/openid-connect`;
    expect(document).toMatchObject({
      issuer: `${app.url}/realms/qa3`,
      authorization_endpoint: `${base}/auth`,
      token_endpoint: `${base}/token`,
      jwks_uri: `${base}/certs`,
      userinfo_endpoint: `${base}/userinfo`,
      end_session_endpoint: `${base}/logout`,
      revocation_endpoint: `${base}/revoke`,
      introspection_endpoint: `${base}/token/introspect`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
    expect([...document.grant_types_supported].sort()).toEqual(
      [
        'authorization_code',
        'client_credentials',
        'password',
        'refresh_token',
        'urn:ietf:params:oauth:grant-type:token-exchange',
      ].sort(),
    );
    expect([...document.token_endpoint_auth_methods_supported].sort()).toEqual([
      'client_secret_basic',
      'client_secret_post',
      'none',
    ]);
    expect(document.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
    expect(document.pushed_authorization_request_endpoint).toBeUndefined();
  });
});

/** A request with headers fetch() will not send as given (Host); cookies kept in `jar`. */
function rawRequest(
  url: string,
  headers: Record<string, string>,
  jar: Map<string, string>,
  form?: Record<string, string>,
): Promise<{ status: number; location: string | undefined; body: string }> {
  const body = form && new URLSearchParams(form).toString();
  const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: form ? 'POST' : 'GET',
        headers: {
          ...headers,
          ...(cookie ? { cookie } : {}),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
      },
      (response) => {
        for (const line of response.headers['set-cookie'] ?? []) {
          const [name, ...value] = line.split(';')[0].split('=');
          jar.set(name, value.join('='));
        }
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode!, location: response.headers.location, body: text }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('published URLs', () => {
  const forged = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
  const urlsIn = (text: string) => [...text.matchAll(/https?:\/\/[^"'\s<>]+/g)].map((match) => match[0]);

  it('come from PUBLIC_URL whatever Host or X-Forwarded-Host says, also behind a trusted proxy', async () => {
    const port = await freePort();
    const proxied = await startTestApp({
      TRUST_PROXY: 'true',
      PUBLIC_URL: 'https://islet.example.org',
      PORT: String(port),
    });
    try {
      for (const [listening, base] of [
        [app.url, app.url],
        [`http://localhost:${port}`, 'https://islet.example.org'],
      ]) {
        const reply = await rawRequest(`${listening}/realms/qa3/.well-known/openid-configuration`, forged, new Map());
        const document = JSON.parse(reply.body);
        for (const name of ['jwks_uri', 'token_endpoint', 'authorization_endpoint', 'end_session_endpoint']) {
          expect(document[name]).toMatch(new RegExp(`^${base}/realms/qa3/protocol/openid-connect/`));
        }
        expect(urlsIn(reply.body).filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
      }
    } finally {
      await proxied.stop();
    }
  });

  it('come from PUBLIC_URL in form actions and redirects of the browser flows', async () => {
    const jar = new Map<string, string>();
    const logout = await rawRequest(`${app.url}/realms/dev1/protocol/openid-connect/logout`, forged, jar);
    expect(logout.body).toContain(`action="${app.url}/realms/dev1/protocol/openid-connect/logout/confirm"`);
    expect(logout.body).not.toContain('evil.example');

    const config = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    const start = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    });
    const toLogin = await rawRequest(start.href, forged, jar);
    expect(toLogin.status).toBe(303);
    const page = await rawRequest(new URL(toLogin.location!, app.url).href, forged, jar);
    expect(page.body).not.toContain('evil.example');
    const action = /<form[^>]*action="([^"]+)"/.exec(page.body)![1];
    const csrf = /name="csrf" value="([^"]*)"/.exec(page.body)![1];
    const submitted = await rawRequest(new URL(action, app.url).href, forged, jar, {
      csrf,
      username: alice.email,
      password: alice.password,
    });
    expect(submitted.status).toBe(303);
    expect(submitted.location).toMatch(new RegExp(`^${app.url}/realms/dev1/protocol/openid-connect/auth/`));
    const back = await rawRequest(submitted.location!, forged, jar);
    expect(back.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?code=/);
    expect(new URL(back.location!).searchParams.get('iss')).toBe(`${app.url}/realms/dev1`);
  });
});

describe('authorization code with PKCE', () => {
  it('logs in through the login page and gets verifiable tokens, userinfo and refreshes', async () => {
    const config = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    const agent = new UserAgent();
    const { hop, verifier, state } = await authorize(agent, config, { login_hint: alice.email });
    expect(hop.status).toBe(200);
    expect(hop.body).toContain(`value="${alice.email}"`);
    const back = await agent.submit(hop, { password: alice.password, username: alice.email }, REDIRECT);
    expect(back.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?code=/);

    const tokens = await client.authorizationCodeGrant(config, new URL(back.location!), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.claims()).toMatchObject({ sub: alice.userid, email: alice.email });
    expect(tokens).toMatchObject({
      token_type: 'bearer',
      scope: expect.stringContaining('openid'),
      refresh_token: expect.any(String),
    });
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
    expect((tokens as unknown as { refresh_expires_in: number }).refresh_expires_in).toBeGreaterThan(0);

    const keys = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
    const { payload } = await jwtVerify(tokens.access_token, keys, {
      issuer: config.serverMetadata().issuer,
      audience: 'islet-api',
    });
    expect(payload.sub).toBe(alice.userid);

    expect(await client.fetchUserInfo(config, tokens.access_token, alice.userid)).toEqual({
      sub: alice.userid,
      email: alice.email,
      email_verified: false,
      preferred_username: alice.email,
    });
    expect(
      (await call(app.url, '/auth/user', { headers: { authorization: `Bearer ${tokens.access_token}` } })).body.userid,
    ).toBe(alice.userid);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('answers prompt=none with login_required without a session and with a code within one', async () => {
    const config = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    const agent = new UserAgent();
    const silent = await authorize(agent, config, { prompt: 'none' });
    expect(new URL(silent.hop.location!).searchParams.get('error')).toBe('login_required');

    await authorize(agent, config, {}, alice);
    const again = await authorize(agent, config, { prompt: 'none' });
    expect(new URL(again.hop.location!).searchParams.get('code')).toBeTruthy();
  });

  it('forces the login page again with prompt=login', async () => {
    const config = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    const agent = new UserAgent();
    await authorize(agent, config, {}, alice);
    const forced = await authorize(agent, config, { prompt: 'login' });
    expect(forced.hop.status).toBe(200);
    expect(forced.hop.body).toContain('<form method="post"');
  });

  it('asks for consent before a third-party client gets a code, and remembers the answer', async () => {
    const spa = 'http://127.0.0.1:9/spa';
    const config = await relyingParty(app, 'dev1', 'spa');
    const agent = new UserAgent();
    const start = () => authorize(agent, config, { redirect_uri: spa, scope: 'openid email' });

    const denied = await start();
    const consentPage = await agent.submit(denied.hop, { username: alice.email, password: alice.password }, spa);
    expect(consentPage.status).toBe(200);
    expect(consentPage.body).toContain('Allow access?');
    expect(consentPage.body).toContain('See your email address');
    expect(consentPage.headers.get('content-security-policy')).toMatch(
      /(^|; )form-action 'self' http:\/\/127\.0\.0\.1:9\/spa(;|$)/,
    );
    const refusal = await agent.submit(consentPage, { decision: 'deny' }, spa);
    expect(new URL(refusal.location!).searchParams.get('error')).toBe('access_denied');

    const allowed = await start();
    expect(allowed.hop.body).toContain('Allow access?');
    const back = await agent.submit(allowed.hop, { decision: 'allow' }, spa);
    const tokens = await client.authorizationCodeGrant(config, new URL(back.location!), {
      pkceCodeVerifier: allowed.verifier,
      expectedState: allowed.state,
    });
    expect(tokens.claims()).toMatchObject({ sub: alice.userid, email: alice.email });

    // Granted once, not asked again within the session.
    const again = await start();
    expect(again.hop.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/spa\?code=/);
  });

  it('requires PKCE from public clients', async () => {
    const agent = new UserAgent();
    const url = new URL(`${app.url}/realms/dev1/protocol/openid-connect/auth`);
    url.search = new URLSearchParams({
      client_id: 'spa',
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'http://127.0.0.1:9/spa',
    }).toString();
    const hop = await agent.request(url.href);
    const error = new URL(hop.location!).searchParams;
    expect(error.get('error')).toBe('invalid_request');
    expect(error.get('error_description')).toMatch(/PKCE/);
  });
});

describe('introspection and revocation', () => {
  it('describes live tokens, and revoking a refresh or access token ends the session everywhere', async () => {
    const config = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    const tokens = await client.genericGrantRequest(config, 'password', {
      username: alice.email,
      password: alice.password,
      scope: 'openid email',
    });
    const access = await client.tokenIntrospection(config, tokens.access_token);
    expect(access).toMatchObject({
      active: true,
      sub: alice.userid,
      client_id: 'islet-dev',
      token_type: 'Bearer',
      username: alice.email,
    });
    expect(await client.tokenIntrospection(config, tokens.refresh_token!)).toMatchObject({
      active: true,
      token_type: 'refresh_token',
      sub: alice.userid,
    });

    await client.tokenRevocation(config, tokens.refresh_token!);
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    expect((await client.tokenIntrospection(config, tokens.refresh_token!)).active).toBe(false);
    expect((await call(app.url, '/auth/user', { token: tokens.access_token })).status).toBe(401);

    const second = await client.genericGrantRequest(config, 'password', {
      username: alice.email,
      password: alice.password,
    });
    await client.tokenRevocation(config, second.access_token);
    await expect(client.refreshTokenGrant(config, second.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect((await client.tokenIntrospection(config, 'not-a-token')).active).toBe(false);
  });

  it('revokes a service-account token on its own', async () => {
    const config = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret, 'post');
    const tokens = await client.clientCredentialsGrant(config);
    expect((await call(app.url, '/auth/token', { token: tokens.access_token })).status).toBe(200);
    await client.tokenRevocation(config, tokens.access_token);
    expect((await call(app.url, '/auth/token', { token: tokens.access_token })).status).toBe(401);
  });
});

describe('realm isolation', () => {
  it('never accepts one realm’s tokens, sessions or refresh tokens in another', async () => {
    const dev = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    const qa = await relyingParty(app, 'qa1', 'islet-dev', app.devClientSecret);
    const tokens = await client.genericGrantRequest(dev, 'password', {
      username: alice.email,
      password: alice.password,
    });
    await expect(client.fetchUserInfo(qa, tokens.access_token, alice.userid)).rejects.toBeDefined();
    expect((await client.tokenIntrospection(qa, tokens.access_token)).active).toBe(false);
    expect((await client.tokenIntrospection(qa, tokens.refresh_token!)).active).toBe(false);
    await expect(client.refreshTokenGrant(qa, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });

    const agent = new UserAgent();
    await authorize(agent, dev, {}, alice);
    const silentElsewhere = await authorize(agent, qa, { prompt: 'none' });
    expect(new URL(silentElsewhere.hop.location!).searchParams.get('error')).toBe('login_required');
  });
});
