import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call, graphql } from '../support/http';
import { client, relyingParty } from '../support/relying-party';
import { UserAgent } from '../support/user-agent';

const REDIRECT = 'http://127.0.0.1:9/callback';
const basic = (login: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
});
/**
 * Hashes cost what they cost in production (the suites hash cheaply, test/support/app.ts): a
 * flood must still be waiting on its first hashes when the budget refuses the rest, rather than
 * reach the lockout after a few fast failures.
 */
const PRODUCTION_COST = { PASSWORD_HASH_MEMORY_KIB: '19456', PASSWORD_HASH_PASSES: '2' };
const from = (source: string) => ({ 'x-forwarded-for': source });

/** argon2id hashes the service has computed so far, as /metrics counts them. */
async function hashesSoFar(app: TestApp): Promise<number> {
  const metrics = await call(app.url, '/metrics');
  return Number(/^islet_password_hashes_total (\d+)$/m.exec(metrics.text)![1]);
}

const legacyLogin = (app: TestApp, login: string, password: string, source: string) =>
  call(app.url, '/auth/login', { method: 'POST', headers: { ...basic(login, password), ...from(source) } });

/** `count` requests at once; the budget is spent before the first of them is answered. */
const flood = <T>(count: number, once: (attempt: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, attempt) => once(attempt)));

/** The first answer of a flood refused with 429, after checking that its Retry-After names whole seconds. */
async function refusalAmong<T extends { status: number; headers: Headers }>(
  count: number,
  once: () => Promise<T>,
): Promise<T> {
  const refused = (await flood(count, once)).find((reply) => reply.status === 429);
  expect(refused?.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  return refused!;
}

describe('a flood of wrong passwords from one source', () => {
  let app: TestApp;
  let victim: TestAccount;
  let bystander: TestAccount;

  beforeAll(async () => {
    // 10 hashes a second in all, one source 5 of them.
    app = await startTestApp({ ...PRODUCTION_COST, TRUST_PROXY: 'true', PASSWORD_CHECKS_PER_SECOND: '10' });
    victim = await signUp(app, 'victim');
    bystander = await signUp(app, 'bystander');
  });
  afterAll(() => app?.stop());

  it('is answered 429 with Retry-After before any hash, while another source still logs in', async () => {
    const before = await hashesSoFar(app);
    const replies = await flood(20, (attempt) => legacyLogin(app, victim.email, `wrong-${attempt}`, '203.0.113.9'));
    const refused = replies.filter((reply) => reply.status === 429);
    const checked = replies.filter((reply) => reply.status === 401);
    expect(checked.length + refused.length).toBe(20);
    expect(refused.length).toBeGreaterThanOrEqual(10);
    for (const reply of refused) {
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(reply.body).toEqual({ code: 429, reason: expect.stringMatching(/^Too many password attempts/), error: 0 });
    }
    // Each admitted attempt cost one hash; the refused ones none.
    expect((await hashesSoFar(app)) - before).toBe(checked.length);

    const elsewhere = await legacyLogin(app, bystander.email, bystander.password, '198.51.100.20');
    expect(elsewhere.status).toBe(200);
  });
});

describe('every place a password is hashed draws on the budget', () => {
  let app: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    // One hash a second per source: the second attempt at once from a source is refused.
    app = await startTestApp({ ...PRODUCTION_COST, TRUST_PROXY: 'true', PASSWORD_CHECKS_PER_SECOND: '2' });
    account = await signUp(app, 'member');
  });
  afterAll(() => app?.stop());

  it('GraphQL logIn answers HTTP 429 with Retry-After and RATE_LIMITED', async () => {
    const logIn = () =>
      call(app.url, '/graphql', {
        headers: from('203.0.113.31'),
        json: {
          query: 'mutation ($input: LogInInput!) { logIn(input: $input) { session { token } } }',
          variables: { input: { username: account.email, password: 'a wrong guess' } },
        },
      });
    const refused = await refusalAmong(4, logIn);
    expect(refused.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfter: Number(refused.headers.get('retry-after')),
    });
  });

  it('the password grant answers 429 with Retry-After and temporarily_unavailable', async () => {
    const grant = () =>
      call(app.url, '/realms/dev1/protocol/openid-connect/token', {
        headers: from('203.0.113.32'),
        form: {
          grant_type: 'password',
          client_id: 'islet-dev',
          client_secret: app.devClientSecret,
          username: account.email,
          password: 'a wrong guess',
        },
      });
    const refused = await refusalAmong(4, grant);
    expect(refused.body).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.stringMatching(/^Too many password attempts/),
    });
  });

  it('the login page answers 429 with Retry-After and says when to try again', async () => {
    const agent = new UserAgent(from('203.0.113.33'));
    const config = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: client.randomPKCECodeVerifier(),
      code_challenge_method: 'S256',
    });
    const page = await agent.follow(url.href, REDIRECT);
    const refused = await refusalAmong(4, () =>
      agent.submit(page, { username: account.email, password: 'a wrong guess' }, REDIRECT),
    );
    expect(refused.body).toContain('Too many sign-in attempts. Try again in');
  });

  it('a current password and a sign-up are refused with 429 too', async () => {
    let attempt = 0;
    const change = () =>
      graphql(
        app.url,
        'mutation ($input: UpdateMeInput!) { updateMe(input: $input) { user { userId } } }',
        { input: { password: `new-password-${(attempt += 1)}`, currentPassword: 'a wrong guess' } },
        account.token,
      );
    // The account's own requests come from this test's address, 127.0.0.1.
    expect((await refusalAmong(4, change)).body.errors[0].extensions.code).toBe('RATE_LIMITED');
    const signUp = await refusalAmong(4, () => {
      const email = uniqueEmail('newcomer');
      return call(app.url, '/auth/user', {
        headers: from('203.0.113.34'),
        json: { username: email, emails: [email], password: 'a fine password' },
      });
    });
    expect(signUp.body).toMatchObject({ code: 429 });
  });
});

describe('a locked-out source', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ ...PRODUCTION_COST, TRUST_PROXY: 'true' });
  });
  afterAll(() => app?.stop());

  it('is refused without a decoy hash: locked attempts cost no hashing', async () => {
    const victim = await signUp(app, 'locked');
    for (let attempt = 0; attempt < 5; attempt += 1)
      expect((await legacyLogin(app, victim.email, `wrong-${attempt}`, '203.0.113.40')).status).toBe(401);
    const before = await hashesSoFar(app);
    for (let attempt = 0; attempt < 3; attempt += 1)
      expect((await legacyLogin(app, victim.email, victim.password, '203.0.113.40')).status).toBe(401);
    expect(await hashesSoFar(app)).toBe(before);
  });
});

describe('the budget’s size', () => {
  it('is measured at start-up when PASSWORD_CHECKS_PER_SECOND is not set, and shown at /metrics', async () => {
    const app = await startTestApp({ ...PRODUCTION_COST, PASSWORD_CHECKS_PER_SECOND: '' });
    try {
      const metrics = await call(app.url, '/metrics');
      const perSecond = Number(/^islet_password_budget_per_second (\S+)$/m.exec(metrics.text)![1]);
      expect(perSecond).toBeGreaterThan(0);
    } finally {
      await app.stop();
    }
  });
});
