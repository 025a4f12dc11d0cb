import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { REALMS } from '../../src/config';
import { passwordGrant, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';

let app: TestApp;
let alice: TestAccount;
const clientsFile = path.join(os.tmpdir(), `islet-clients-${process.pid}.json`);

const token = (realm: string, form: Record<string, string>) =>
  call(app.url, `/realms/${realm}/protocol/openid-connect/token`, { form });

beforeAll(async () => {
  fs.writeFileSync(
    clientsFile,
    JSON.stringify({
      '*': [
        {
          client_id: 'partner-untrusted',
          client_secret: 'untrusted-secret-0123456789',
          grant_types: ['password', 'refresh_token'],
        },
        {
          client_id: 'backend',
          client_secret: 'backend-secret-0123456789',
          grant_types: ['client_credentials'],
          realm_roles: ['backend_service'],
        },
      ],
    }),
  );
  app = await startTestApp({ OIDC_CLIENTS_FILE: clientsFile });
  alice = await signUp(app, 'alice');
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(clientsFile, { force: true });
});

describe('password grant in every realm', () => {
  it.each(REALMS)('%s issues its own tokens, verifiable with its own keys', async (realm) => {
    const reply = await passwordGrant(app, realm, alice.email, alice.password);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      access_token: expect.any(String),
      expires_in: expect.any(Number),
      refresh_expires_in: expect.any(Number),
      refresh_token: expect.any(String),
      id_token: expect.any(String),
      scope: expect.stringContaining('openid'),
      token_type: 'Bearer',
    });
    expect(reply.body.expires_in).toBeLessThanOrEqual(600);
    expect(reply.body.refresh_expires_in).toBeGreaterThan(reply.body.expires_in);
    const issuer = `${app.url}/realms/${realm}`;
    const keys = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
    const { payload } = await jwtVerify(reply.body.access_token, keys, { issuer });
    expect(payload.sub).toBe(alice.userid);
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(600);
    const id = await jwtVerify(reply.body.id_token, keys, { issuer, audience: 'islet-dev' });
    expect(id.payload).toMatchObject({ sub: alice.userid, email: alice.email });
    const me = await call(app.url, '/auth/user', { headers: { authorization: `Bearer ${reply.body.access_token}` } });
    expect(me.body.userid).toBe(alice.userid);
  });

  it('keeps each realm apart: keys, refresh tokens and issuers do not cross', async () => {
    const dev = await passwordGrant(app, 'dev1', alice.email, alice.password);
    const qaKeys = createRemoteJWKSet(new URL(`${app.url}/realms/qa1/protocol/openid-connect/certs`));
    await expect(jwtVerify(dev.body.access_token, qaKeys)).rejects.toThrow();
    const crossRefresh = await token('qa1', {
      grant_type: 'refresh_token',
      refresh_token: dev.body.refresh_token,
      client_id: 'islet-dev',
      client_secret: app.devClientSecret,
    });
    expect(crossRefresh.status).toBe(400);
    expect(crossRefresh.body.error).toBe('invalid_grant');
  });

  it('is refused to clients that are not trusted partners (unauthorized_client)', async () => {
    const reply = await token('dev1', {
      grant_type: 'password',
      client_id: 'partner-untrusted',
      client_secret: 'untrusted-secret-0123456789',
      username: alice.email,
      password: alice.password,
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('unauthorized_client');
  });

  it('answers invalid_grant for wrong credentials and invalid_request for missing ones', async () => {
    const wrong = await passwordGrant(app, 'dev1', alice.email, 'wrong-password');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
    const missing = await token('dev1', {
      grant_type: 'password',
      client_id: 'islet-dev',
      client_secret: app.devClientSecret,
      username: alice.email,
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
    expect(missing.body.error_description).toMatch(/password/);
  });
});

describe('refresh_token grant', () => {
  it('rotates refresh tokens and treats a replayed old one as theft: the whole session ends', async () => {
    const first = await passwordGrant(app, 'dev1', alice.email, alice.password);
    const refresh = (refreshToken: string) =>
      token('dev1', {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: 'islet-dev',
        client_secret: app.devClientSecret,
      });
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body.scope).toBe(first.body.scope);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect((await call(app.url, '/auth/user', { token: second.body.access_token })).status).toBe(200);

    const replay = await refresh(first.body.refresh_token);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await refresh(second.body.refresh_token)).body.error).toBe('invalid_grant');
    expect((await call(app.url, '/auth/user', { token: second.body.access_token })).status).toBe(401);
  });
});

describe('client_credentials grant', () => {
  it('issues a short-lived token without a refresh token; backend_service clients get server tokens', async () => {
    const reply = await token('dev1', {
      grant_type: 'client_credentials',
      client_id: 'backend',
      client_secret: 'backend-secret-0123456789',
    });
    expect(reply.status).toBe(200);
    expect(reply.body.refresh_token).toBeUndefined();
    expect(reply.body.refresh_expires_in).toBe(0);
    expect(decodeJwt(reply.body.access_token)).toMatchObject({
      client_id: 'backend',
      realm_access: { roles: ['backend_service'] },
    });
    const info = await call(app.url, '/auth/token', { token: reply.body.access_token });
    expect(info.body).toMatchObject({ isserver: true, userid: 'backend' });
    expect((await call(app.url, `/auth/user/${alice.userid}`, { token: reply.body.access_token })).status).toBe(200);
  });

  it('answers the granted scope, an empty one when none was asked for (spec §2.10)', async () => {
    const form = { grant_type: 'client_credentials', client_id: 'backend', client_secret: 'backend-secret-0123456789' };
    const none = await token('dev1', form);
    expect(none.status).toBe(200);
    expect(none.body).toEqual({
      access_token: expect.any(String),
      expires_in: expect.any(Number),
      refresh_expires_in: 0,
      scope: '',
      token_type: 'Bearer',
    });
    const some = await token('dev1', { ...form, scope: 'email profile' });
    expect(some.body.scope).toBe('email profile');
    expect(decodeJwt(some.body.access_token).scope).toBe('email profile');
  });

  it('gives other clients a token that is not a server token', async () => {
    const reply = await token('dev1', {
      grant_type: 'client_credentials',
      client_id: 'islet-dev',
      client_secret: app.devClientSecret,
    });
    expect(reply.status).toBe(200);
    expect((await call(app.url, '/auth/token', { token: reply.body.access_token })).body.isserver).toBe(false);
    expect((await call(app.url, `/auth/user/${alice.userid}`, { token: reply.body.access_token })).status).toBe(403);
  });
});

describe('token endpoint errors (RFC 6749)', () => {
  it.each([
    [
      'a wrong client secret',
      { grant_type: 'client_credentials', client_id: 'backend', client_secret: 'wrong-secret-0123456789' },
      401,
      'invalid_client',
    ],
    [
      'an unknown client',
      { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'whatever-0123456789' },
      401,
      'invalid_client',
    ],
    [
      'an unknown grant type',
      { grant_type: 'magic', client_id: 'backend', client_secret: 'backend-secret-0123456789' },
      400,
      'unsupported_grant_type',
    ],
    ['no grant type', { client_id: 'backend', client_secret: 'backend-secret-0123456789' }, 400, 'invalid_request'],
    [
      'a grant the client may not use',
      {
        grant_type: 'password',
        client_id: 'backend',
        client_secret: 'backend-secret-0123456789',
        username: 'a',
        password: 'b',
      },
      400,
      'unauthorized_client',
    ],
  ])('answers %s with %s %s', async (_case, form, status, error) => {
    const reply = await token('dev1', form as Record<string, string>);
    expect(reply.status).toBe(status);
    expect(reply.body.error).toBe(error);
  });

  it('answers a JSON 404 for an unknown realm', async () => {
    const reply = await token('nowhere', {
      grant_type: 'client_credentials',
      client_id: 'backend',
      client_secret: 'backend-secret-0123456789',
    });
    expect(reply.status).toBe(404);
    expect(reply.body.error_description).toMatch(/Realm "nowhere" does not exist/);
  });
});

describe('persistence', () => {
  it('keeps issued access and refresh tokens valid across a restart', async () => {
    const before = await passwordGrant(app, 'qa2', alice.email, alice.password);
    await app.restart();
    expect((await call(app.url, '/auth/user', { token: before.body.access_token })).status).toBe(200);
    const refreshed = await token('qa2', {
      grant_type: 'refresh_token',
      refresh_token: before.body.refresh_token,
      client_id: 'islet-dev',
      client_secret: app.devClientSecret,
    });
    expect(refreshed.status).toBe(200);
  });
});
