import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import pg from 'pg';
import { rotateSigningKey } from '../../src/auth/oidc/keys';
import { loadConfig } from '../../src/config';
import { entities } from '../../src/entities';
import { openDatabase } from '../../src/infra/database/orm';
import { createLogger } from '../../src/infra/logger';
import { startService } from '../../src/service';
import { passwordGrant, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { SERVER_SECRET, startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { call } from '../support/http';
import { client, relyingParty } from '../support/relying-party';
import { UserAgent } from '../support/user-agent';

let app: TestApp;
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  app = await startTestApp({ TOKEN_RATE_LIMIT: '1000' });
});
afterAll(async () => {
  await app?.stop();
});

async function loginPage(agent: UserAgent, realm = 'dev1', extra: Record<string, string> = {}) {
  const config = await relyingParty(app, realm, 'islet-dev', app.devClientSecret);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: client.randomPKCECodeVerifier().padEnd(43, 'x'),
    code_challenge_method: 'S256',
    ...extra,
  });
  return agent.follow(url.href, REDIRECT);
}

const basic = (login: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
});

describe('brute-force protection', () => {
  it('locks an account after repeated failures everywhere passwords are checked, without telling the attacker', async () => {
    const victim = await signUp(app, 'victim');
    const bystander = await signUp(app, 'bystander');
    for (let attempt = 0; attempt < 5; attempt += 1) {
      expect(
        (await call(app.url, '/auth/login', { method: 'POST', headers: basic(victim.email, `wrong-${attempt}-pass`) }))
          .status,
      ).toBe(401);
    }
    const legacy = await call(app.url, '/auth/login', {
      method: 'POST',
      headers: basic(victim.email, victim.password),
    });
    expect(legacy.status).toBe(401);
    expect(legacy.body.reason).toBe('No user matched the given details');
    const grant = await passwordGrant(app, 'dev1', victim.email, victim.password);
    expect(grant.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
    const agent = new UserAgent();
    const page = await loginPage(agent);
    const form = await agent.submit(page, { username: victim.email, password: victim.password }, REDIRECT);
    expect(form.body).toContain('Invalid email or password.');
    expect(
      (await call(app.url, '/auth/login', { method: 'POST', headers: basic(bystander.email, bystander.password) }))
        .status,
    ).toBe(200);
  });

  it('counts failures per account and source: another source logs in, and the lockout shows in logs and metrics', async () => {
    const lines: string[] = [];
    const proxied = await startTestApp(
      { TRUST_PROXY: 'true', LOG_LEVEL: 'warn' },
      { logTo: (line) => lines.push(line) },
    );
    try {
      const victim = await signUp(proxied, 'victim');
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      const login = (password: string, ip: string) =>
        call(proxied.url, '/auth/login', {
          method: 'POST',
          headers: { ...basic(victim.email, password), ...from(ip) },
        });
      for (let attempt = 0; attempt < 5; attempt += 1)
        expect((await login(`wrong-${attempt}-pass`, '203.0.113.9')).status).toBe(401);
      expect((await login(victim.password, '203.0.113.9')).status).toBe(401);

      expect((await login(victim.password, '198.51.100.20')).status).toBe(200);
      const grant = await call(proxied.url, '/realms/dev1/protocol/openid-connect/token', {
        headers: from('198.51.100.21'),
        form: {
          grant_type: 'password',
          client_id: 'islet-dev',
          client_secret: proxied.devClientSecret,
          username: victim.email,
          password: victim.password,
        },
      });
      expect(grant.status).toBe(200);
      expect((await login(victim.password, '203.0.113.9')).status).toBe(401);

      const locked = lines
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg === 'login locked after repeated failures');
      expect(locked).toEqual([
        expect.objectContaining({ lock: 'account_source', source: '203.0.113.9', path: 'legacy_login', failures: 5 }),
      ]);
      const metrics = await call(proxied.url, '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(metrics.text).toMatch(/^islet_login_lockouts_total\{path="legacy_login",lock="account_source"\} [1-9]/m);
      expect(metrics.text).toMatch(
        /^islet_login_failures_total\{path="legacy_login",reason="invalid_credentials"\} [1-9]/m,
      );
      expect(metrics.text).toMatch(/^islet_login_failures_total\{path="legacy_login",reason="locked"\} [1-9]/m);
      expect(metrics.text).not.toContain(victim.email);
      expect(metrics.text).not.toContain('203.0.113.9');
    } finally {
      await proxied.stop();
    }
  });

  it('counts wrong current passwords of an account change like failed logins', async () => {
    const owner = await signUp(app, 'owner');
    const change = (currentPassword: string) =>
      call(app.url, '/auth/user', {
        method: 'PUT',
        token: owner.token,
        json: { updates: { password: 'taken-over-123', currentPassword } },
      });
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await change(`guess-${attempt}-pass`)).status).toBe(403);
    expect((await change(owner.password)).status).toBe(403);
    expect((await call(app.url, '/metrics')).text).toMatch(
      /^islet_login_lockouts_total\{path="current_password",lock="account_source"\} [1-9]/m,
    );
  });

  it('locks a source address that tries many accounts', async () => {
    const target = await signUp(app, 'target');
    const forwarded = (ip: string) => ({ 'x-forwarded-for': ip });
    const proxied = await startTestApp({ TRUST_PROXY: 'true' });
    try {
      const user = await signUp(proxied, 'behindproxy');
      for (let attempt = 0; attempt < 30; attempt += 1) {
        await call(proxied.url, '/auth/login', {
          method: 'POST',
          headers: { ...basic(`nobody${attempt}@example.org`, 'wrong-pass-123'), ...forwarded('203.0.113.7') },
        });
      }
      const blocked = await call(proxied.url, '/auth/login', {
        method: 'POST',
        headers: { ...basic(user.email, user.password), ...forwarded('203.0.113.7') },
      });
      expect(blocked.status).toBe(401);
      const elsewhere = await call(proxied.url, '/auth/login', {
        method: 'POST',
        headers: { ...basic(user.email, user.password), ...forwarded('198.51.100.4') },
      });
      expect(elsewhere.status).toBe(200);
    } finally {
      await proxied.stop();
    }
    expect(
      (await call(app.url, '/auth/login', { method: 'POST', headers: basic(target.email, target.password) })).status,
    ).toBe(200);
  });
});

describe('the source address behind proxies', () => {
  /** The correct password, with `headers`, on every path that checks one. */
  async function everyPath(target: TestApp, account: TestAccount, headers: Record<string, string>) {
    const legacy = await call(target.url, '/auth/login', {
      method: 'POST',
      headers: { ...basic(account.email, account.password), ...headers },
    });
    const grant = await call(target.url, '/realms/dev1/protocol/openid-connect/token', {
      headers,
      form: {
        grant_type: 'password',
        client_id: 'islet-dev',
        client_secret: target.devClientSecret,
        username: account.email,
        password: account.password,
      },
    });
    const agent = new UserAgent(headers);
    const config = await relyingParty(target, 'dev1', 'islet-dev', target.devClientSecret);
    const page = await agent.follow(
      client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: client.randomPKCECodeVerifier().padEnd(43, 'x'),
        code_challenge_method: 'S256',
      }).href,
      REDIRECT,
    );
    const form = await agent.submit(page, { username: account.email, password: account.password }, REDIRECT);
    const change = await call(target.url, '/auth/user', {
      method: 'PUT',
      token: account.token,
      headers,
      json: { updates: { emails: [`moved.${account.email}`], currentPassword: account.password } },
    });
    return {
      legacy: legacy.status,
      grant: grant.status,
      loginPage: form.location?.startsWith(REDIRECT) ? 'signed in' : 'refused',
      currentPassword: change.status,
    };
  }

  it('trusts only the hop the proxy appended: rotating the leftmost X-Forwarded-For escapes no lockout', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: 'true', TOKEN_RATE_LIMIT: '1000' });
    try {
      const victim = await signUp(proxied, 'victim');
      for (let i = 0; i < 25; i += 1) {
        const reply = await call(proxied.url, '/auth/login', {
          method: 'POST',
          headers: { ...basic(victim.email, `wrong-${i}-pass`), 'x-forwarded-for': `8.8.${i}.1, 127.0.0.1` },
        });
        expect(reply.status).toBe(401);
      }
      // Whatever the client writes on the left, the source is the address the proxy appended.
      expect(await everyPath(proxied, victim, { 'x-forwarded-for': '8.8.200.1, 127.0.0.1' })).toEqual({
        legacy: 401,
        grant: 400,
        loginPage: 'refused',
        currentPassword: 403,
      });
      // Another client behind the same proxy has not failed, and signs in everywhere.
      expect(await everyPath(proxied, victim, { 'x-forwarded-for': '127.0.0.1, 198.51.100.30' })).toEqual({
        legacy: 200,
        grant: 200,
        loginPage: 'signed in',
        currentPassword: 200,
      });
    } finally {
      await proxied.stop();
    }
  });

  it('trusts as many hops as TRUST_PROXY counts, and no further', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: '2' });
    try {
      const victim = await signUp(proxied, 'victim');
      const login = (password: string, forwarded: string) =>
        call(proxied.url, '/auth/login', {
          method: 'POST',
          headers: { ...basic(victim.email, password), 'x-forwarded-for': forwarded },
        });
      for (let i = 0; i < 5; i += 1)
        expect((await login(`wrong-${i}-pass`, `8.8.${i}.1, 203.0.113.50, 10.0.0.${i}`)).status).toBe(401);
      expect((await login(victim.password, '9.9.9.9, 203.0.113.50, 10.0.0.9')).status).toBe(401);
      expect((await login(victim.password, '203.0.113.50, 198.51.100.50, 10.0.0.9')).status).toBe(200);
    } finally {
      await proxied.stop();
    }
  });
});

describe('lockouts of an account with several login names', () => {
  it('counts every email of an account against one budget, per source', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: 'true', TOKEN_RATE_LIMIT: '1000' });
    try {
      const first = uniqueEmail('ada');
      const second = uniqueEmail('lovelace');
      const password = 'correct-horse-123';
      const created = await call(proxied.url, '/auth/user', {
        json: { username: first, emails: [first, second], password },
      });
      expect(created.status).toBe(201);
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      const login = (name: string, secret: string, ip: string) =>
        call(proxied.url, '/auth/login', { method: 'POST', headers: { ...basic(name, secret), ...from(ip) } });
      for (let attempt = 0; attempt < 5; attempt += 1)
        expect((await login(first, `wrong-${attempt}-pass`, '203.0.113.60')).status).toBe(401);
      // The account is locked for that source, whichever of its names is tried, on every path.
      expect((await login(second, password, '203.0.113.60')).status).toBe(401);
      expect((await login(second.toUpperCase(), password, '203.0.113.60')).status).toBe(401);
      const grant = await call(proxied.url, '/realms/dev1/protocol/openid-connect/token', {
        headers: from('203.0.113.60'),
        form: {
          grant_type: 'password',
          client_id: 'islet-dev',
          client_secret: proxied.devClientSecret,
          username: second,
          password,
        },
      });
      expect(grant.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
      // Another source is not locked out, under either name.
      expect((await login(second, password, '198.51.100.60')).status).toBe(200);
      expect((await login(first, password, '198.51.100.61')).status).toBe(200);
      // Unknown names answer exactly like wrong passwords.
      const unknown = await login(uniqueEmail('nobody'), password, '203.0.113.61');
      expect({ status: unknown.status, body: unknown.body }).toEqual({
        status: 401,
        body: { code: 401, reason: 'No user matched the given details', error: 0 },
      });
    } finally {
      await proxied.stop();
    }
  });
});

describe('token endpoint rate limit', () => {
  it('answers 429 with Retry-After once an address exceeds its budget', async () => {
    const limited = await startTestApp({ TOKEN_RATE_LIMIT: '2' });
    try {
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 8; attempt += 1) {
        const reply = await call(limited.url, '/realms/dev1/protocol/openid-connect/token', {
          form: { grant_type: 'client_credentials', client_id: 'islet-dev', client_secret: limited.devClientSecret },
        });
        statuses.push(reply.status);
        if (reply.status === 429) {
          expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
          expect(reply.body.error).toBe('temporarily_unavailable');
        }
      }
      expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
      expect(statuses).toContain(429);
    } finally {
      await limited.stop();
    }
  });

  it('is one budget across instances: requests alternating between two meet one limit', async () => {
    // One a second, bursts of two: the budget of a whole burst, shared.
    const first = await startTestApp({ TOKEN_RATE_LIMIT: '1' });
    const second = await startTestApp({
      TOKEN_RATE_LIMIT: '1',
      DATABASE_URL: first.database.url,
      PUBLIC_URL: first.url,
      DEV_CLIENT_SECRET: first.devClientSecret,
    });
    try {
      const statuses: number[] = [];
      for (const instance of [first, second, first, second]) {
        const reply = await call(instance.url, '/realms/dev1/protocol/openid-connect/token', {
          form: { grant_type: 'client_credentials', client_id: 'islet-dev', client_secret: first.devClientSecret },
        });
        statuses.push(reply.status);
      }
      // Bursts of two in all, whichever instance answers: per instance it would have been four.
      expect(statuses.slice(0, 2)).toEqual([200, 200]);
      expect(statuses.slice(2)).toContain(429);
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});

describe('signing-key rotation', () => {
  it('signs new tokens with the new key while tokens of the old one stay valid', async () => {
    const alice: TestAccount = await signUp(app, 'alice');
    const before = await passwordGrant(app, 'qa4', alice.email, alice.password);
    const oldKid = decodeProtectedHeader(before.body.access_token).kid;

    const orm = await openDatabase(app.database.url, entities, 1);
    const newKid = await rotateSigningKey(orm, 'qa4');
    await orm.close();
    // The service learns of the new key by a database event: new tokens use it shortly after.
    let after = before;
    await eventually(
      async () => {
        after = await passwordGrant(app, 'qa4', alice.email, alice.password);
        return decodeProtectedHeader(after.body.access_token).kid === newKid;
      },
      'new tokens are signed with the new key',
      5_000,
    );

    const keys = createRemoteJWKSet(new URL(`${app.url}/realms/qa4/protocol/openid-connect/certs`));
    await jwtVerify(before.body.access_token, keys);
    await jwtVerify(after.body.access_token, keys);
    const published = (await call(app.url, '/realms/qa4/protocol/openid-connect/certs')).body.keys.map(
      (key: { kid: string }) => key.kid,
    );
    expect(published).toEqual([newKid, oldKid]);
    expect((await call(app.url, '/auth/user', { token: before.body.access_token })).status).toBe(200);
    expect((await call(app.url, '/auth/user', { token: after.body.access_token })).status).toBe(200);
  });
});

describe('GET /metrics', () => {
  it('answers only the bearer METRICS_TOKEN when one is set', async () => {
    const guarded = await startTestApp({ METRICS_TOKEN: 'scrape-token-0123456789' });
    try {
      expect((await call(guarded.url, '/metrics')).status).toBe(401);
      const wrong = await call(guarded.url, '/metrics', { headers: { authorization: 'Bearer not-the-token-0123' } });
      expect(wrong.status).toBe(401);
      const right = await call(guarded.url, '/metrics', {
        headers: { authorization: 'Bearer scrape-token-0123456789' },
      });
      expect(right.status).toBe(200);
      expect(right.text).toContain('# TYPE islet_login_lockouts_total counter');
    } finally {
      await guarded.stop();
    }
  });
});

describe('browser safety', () => {
  it('answers X-Content-Type-Options: nosniff everywhere: REST, GraphQL, OIDC, health, 404s and errors', async () => {
    const alice = await signUp(app, 'alice');
    const replies = await Promise.all([
      call(app.url, '/auth/user', { token: alice.token }),
      call(app.url, '/auth/user'),
      call(app.url, '/graphql', { json: { query: '{ me { userId } }' }, token: alice.token }),
      call(app.url, '/graphql', { body: 'not json', headers: { 'content-type': 'application/json' } }),
      call(app.url, '/realms/dev1/.well-known/openid-configuration'),
      call(app.url, '/realms/dev1/protocol/openid-connect/certs'),
      call(app.url, '/realms/dev1/protocol/openid-connect/token', { form: { grant_type: 'password' } }),
      call(app.url, '/realms/dev1/protocol/openid-connect/auth?client_id=nobody&scope=openid'),
      call(app.url, '/realms/dev1/no-such-thing'),
      call(app.url, '/realms/dev1/protocol/openid-connect/logout'),
      call(app.url, '/realms/nowhere/protocol/openid-connect/certs'),
      call(app.url, '/healthz'),
      call(app.url, '/readyz'),
      call(app.url, '/metrics'),
      call(app.url, '/no/such/route'),
    ]);
    for (const reply of replies) expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('lets the login form post only to the service, and go on only to the client’s registered redirect URI', async () => {
    const page = await loginPage(new UserAgent());
    const policy = page.headers.get('content-security-policy')!;
    expect(policy).toMatch(/(^|; )form-action 'self' http:\/\/127\.0\.0\.1:9\/callback(;|$)/);
  });

  it('serves an accessible login page with no third-party resources and a strict CSP', async () => {
    const page = await loginPage(new UserAgent(), 'dev1', { login_hint: 'ada@example.org' });
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/<label for="username">/);
    const username = /<input[^>]*id="username"[^>]*>/s.exec(page.body)?.[0] ?? '';
    expect(username).toMatch(/name="username"/);
    expect(username).toMatch(/type="email"/);
    expect(username).toMatch(/autocomplete="username"/);
    expect(page.body).toMatch(/<label for="password">/);
    expect(page.body).toContain('value="ada@example.org"');
    expect(page.body).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1|localhost)/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect((await call(app.url, '/realms/dev1/resources/islet.css')).headers.get('content-type')).toMatch(/text\/css/);
  });

  it('gives the same answer for an unknown account and a wrong password', async () => {
    const alice = await signUp(app, 'alice');
    const stranger = new UserAgent();
    const unknown = await stranger.submit(
      await loginPage(stranger),
      { username: 'nobody@example.org', password: 'whatever-1' },
      REDIRECT,
    );
    const agent = new UserAgent();
    const wrong = await agent.submit(
      await loginPage(agent),
      { username: alice.email, password: 'whatever-1' },
      REDIRECT,
    );
    const strip = (body: string) => body.replace(/value="[^"]*"/g, '').replace(/login-actions\/[\w-]+/g, '');
    expect(wrong.status).toBe(unknown.status);
    expect(strip(wrong.body)).toBe(strip(unknown.body));
  });

  it('answers a NUL in the login form like wrong credentials, never a 500', async () => {
    const alice = await signUp(app, 'alice');
    const agent = new UserAgent();
    const wrong = await agent.submit(
      await loginPage(agent),
      { username: alice.email, password: 'whatever-1' },
      REDIRECT,
    );
    for (const fields of [
      { username: `${alice.email}\u0000`, password: alice.password },
      { username: alice.email, password: `${alice.password}\u0000` },
    ]) {
      const withNul = new UserAgent();
      const answer = await withNul.submit(await loginPage(withNul), fields, REDIRECT);
      expect(answer.status).toBe(wrong.status);
      expect(answer.body).toContain('Invalid email or password.');
    }
  });

  it('refuses a login form without its CSRF token', async () => {
    const alice = await signUp(app, 'alice');
    const agent = new UserAgent();
    const page = await loginPage(agent);
    const forged = page.body.replace(/name="csrf" value="[^"]*"/, 'name="csrf" value="forged"');
    const reply = await agent.submit(
      { ...page, body: forged },
      { username: alice.email, password: alice.password },
      REDIRECT,
    );
    expect(reply.status).toBe(403);
    expect(reply.location).toBeNull();
  });

  it('sets HttpOnly, SameSite cookies, and Secure ones behind a TLS proxy', async () => {
    const agent = new UserAgent();
    await loginPage(agent);
    expect(agent.setCookieHeaders.length).toBeGreaterThan(0);
    for (const cookie of agent.setCookieHeaders) expect(cookie.toLowerCase()).toMatch(/httponly/);
    for (const cookie of agent.setCookieHeaders) expect(cookie.toLowerCase()).toMatch(/samesite=lax/);
    const proxied = await startTestApp({ TRUST_PROXY: 'true' });
    try {
      const tls = new UserAgent({ 'x-forwarded-proto': 'https' });
      const config = await relyingParty(proxied, 'dev1', 'islet-dev', proxied.devClientSecret);
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      });
      await tls.request(url.href);
      expect(tls.setCookieHeaders.length).toBeGreaterThan(0);
      for (const cookie of tls.setCookieHeaders) expect(cookie.toLowerCase()).toMatch(/secure/);
    } finally {
      await proxied.stop();
    }
  });

  it('never redirects to unregistered places', async () => {
    const agent = new UserAgent();
    const config = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    const evil = client.buildAuthorizationUrl(config, {
      redirect_uri: 'https://evil.example/cb',
      scope: 'openid',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    });
    const refused = await agent.request(evil.href);
    expect(refused.status).toBe(400);
    expect(refused.location).toBeNull();
    const logout = await agent.request(
      `${app.url}/realms/dev1/protocol/openid-connect/logout?client_id=islet-dev&post_logout_redirect_uri=${encodeURIComponent('https://evil.example/')}`,
    );
    expect(logout.status).toBe(400);
    expect(logout.location).toBeNull();
  });
});

describe('the development client on a shared database', () => {
  const secondInstance = (devClientSecret: string) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-second-'));
    const config = loadConfig({
      NODE_ENV: 'test',
      PORT: '0',
      DATABASE_URL: app.database.url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      SERVER_SECRET,
      DEV_CLIENT_SECRET: devClientSecret,
      DATABASE_POOL_SIZE: '2',
    });
    return { config, dataDir, logger: createLogger('silent') };
  };
  const clientCredentials = (url: string, secret: string) =>
    call(url, '/realms/qa2/protocol/openid-connect/token', {
      form: { grant_type: 'client_credentials', client_id: 'islet-dev', client_secret: secret },
    });

  it('keeps the secret stored first: a second instance does not overwrite it with the one it generates', async () => {
    const { config, dataDir, logger } = secondInstance('');
    const second = await startService(config, logger);
    try {
      for (const url of [app.url, second.url])
        expect((await clientCredentials(url, app.devClientSecret)).status).toBe(200);
      // The secret it generated works nowhere, so it is neither kept nor printed.
      const generated = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'));
      expect(generated.devClientSecret).toBeUndefined();
      expect(second.secrets.devClientSecret).toBeUndefined();
    } finally {
      await second.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('stops a start-up whose configured DEV_CLIENT_SECRET differs from the stored one, saying so', async () => {
    const { config, dataDir, logger } = secondInstance('another-dev-secret-0123456789');
    try {
      await expect(startService(config, logger)).rejects.toThrow(
        /DEV_CLIENT_SECRET differs from the secret of the development client islet-dev that is stored/,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    expect((await clientCredentials(app.url, app.devClientSecret)).status).toBe(200);
    expect((await clientCredentials(app.url, 'another-dev-secret-0123456789')).status).toBe(401);
  });
});

describe('client secrets at rest', () => {
  it('are stored hashed', async () => {
    const db = new pg.Client({ connectionString: app.database.url });
    await db.connect();
    const { rows } = await db.query(
      `select payload->>'client_secret' as secret from oidc_records where model = 'Client' and id = 'islet-dev'`,
    );
    await db.end();
    expect(rows).toHaveLength(8);
    for (const row of rows) {
      expect(row.secret).toMatch(/^sha256\$/);
      expect(row.secret).not.toContain(app.devClientSecret);
    }
  });
});
