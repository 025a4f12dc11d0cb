import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt } from 'jose';
import { passwordGrant, signUp, type TestAccount } from '../support/accounts';
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
    graphql: (token: string) => graphql(app.url, '{ me { userid } }', {}, token),
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
    const gql = await graphql(app.url, '{ me { userid } }');
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
