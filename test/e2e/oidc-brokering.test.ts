import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT, importJWK, type JWK } from 'jose';
import { signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { startExternalIdp, EXTERNAL_API, type ExternalIdp } from '../support/external-idp';
import { jsonFile } from '../support/files';
import { call } from '../support/http';
import { client, relyingParty } from '../support/relying-party';
import { strangerKey } from '../support/tokens';
import { UserAgent } from '../support/user-agent';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const REFRESH = 'urn:ietf:params:oauth:token-type:refresh_token';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const REDIRECT = 'http://127.0.0.1:9/callback';

let idp: ExternalIdp;
let app: TestApp;
let rp: client.Configuration;

function externalUser(email = uniqueEmail('external')): string {
  const sub = `ext-${randomBytes(6).toString('hex')}`;
  idp.accounts.set(sub, { email, email_verified: true });
  return sub;
}

const exchange = (params: Record<string, string>, config = rp) =>
  client.genericGrantRequest(config, TOKEN_EXCHANGE, params);

beforeAll(async () => {
  idp = await startExternalIdp();
  const providers = jsonFile('providers.json', {
    dev1: [
      {
        alias: 'ext',
        display_name: 'External ID',
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        validate_signature: true,
      },
      {
        alias: 'ext-userinfo',
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        validate_signature: false,
      },
    ],
  });
  const clients = jsonFile('clients.json', {
    dev1: [{ client_id: 'untrusted', client_secret: 'untrusted-secret-0123456789', grant_types: [TOKEN_EXCHANGE] }],
  });
  app = await startTestApp({ IDENTITY_PROVIDERS_FILE: providers, OIDC_CLIENTS_FILE: clients });
  idp.redirectPrefix = `${app.url}/realms/dev1/broker/`;
  rp = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
});
afterAll(async () => {
  await app?.stop();
  await idp?.close();
});

describe('token exchange', () => {
  it('provisions an account from an external access token (checked at userinfo) and links it', async () => {
    const email = uniqueEmail('provisioned');
    const sub = externalUser(email);
    const first = await exchange({
      subject_token: await idp.accessToken(sub),
      subject_token_type: ACCESS,
      subject_issuer: 'ext',
    });
    expect(first).toMatchObject({ access_token: expect.any(String), issued_token_type: ACCESS, token_type: 'bearer' });
    expect(first.refresh_token).toBeUndefined();
    const me = (await call(app.url, '/auth/user', { token: first.access_token })).body;
    expect(me).toMatchObject({ username: email, emails: [email], emailVerified: true });

    const again = await exchange({
      subject_token: await idp.accessToken(sub),
      subject_token_type: ACCESS,
      subject_issuer: idp.issuer,
      requested_token_type: REFRESH,
    });
    expect(again.refresh_token).toEqual(expect.any(String));
    expect(again).toMatchObject({ issued_token_type: REFRESH });
    expect((await call(app.url, '/auth/user', { token: again.access_token })).body.userid).toBe(me.userid);
  });

  it('validates JWT subject tokens by signature, or at userinfo when the provider is set so', async () => {
    for (const alias of ['ext', 'ext-userinfo']) {
      const email = uniqueEmail(alias);
      const jwt = await idp.jwtAccessToken(externalUser(email));
      const tokens = await exchange({ subject_token: jwt, subject_token_type: JWT, subject_issuer: alias });
      expect((await call(app.url, '/auth/user', { token: tokens.access_token })).body.username).toBe(email);
    }
  });

  it('treats each configured provider as its own: the same person arriving through another is not merged', async () => {
    const sub = externalUser();
    await exchange({ subject_token: await idp.accessToken(sub), subject_token_type: ACCESS, subject_issuer: 'ext' });
    await expect(
      exchange({
        subject_token: await idp.accessToken(sub),
        subject_token_type: ACCESS,
        subject_issuer: 'ext-userinfo',
      }),
    ).rejects.toMatchObject({
      error_description: 'User already exists',
    });
  });

  it('refuses forged, foreign-audience and garbage subject tokens with invalid_grant', async () => {
    const sub = externalUser();
    const forged = await new SignJWT({ sub, email: idp.accounts.get(sub)!.email })
      .setProtectedHeader({ alg: 'RS256', kid: 'ext-1' })
      .setIssuer(idp.issuer)
      .setAudience(EXTERNAL_API)
      .setExpirationTime('5m')
      .sign(await importJWK(strangerKey('ext-1') as JWK, 'RS256'));
    for (const issuer of ['ext', 'ext-userinfo']) {
      await expect(
        exchange({ subject_token: forged, subject_token_type: JWT, subject_issuer: issuer }),
      ).rejects.toMatchObject({ error: 'invalid_grant' });
    }
    await expect(
      exchange({ subject_token: 'garbage', subject_token_type: ACCESS, subject_issuer: 'ext' }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('answers "User already exists" when an unlinked account has the email', async () => {
    const local: TestAccount = await signUp(app, 'local');
    const sub = externalUser(local.email);
    await expect(
      exchange({ subject_token: await idp.accessToken(sub), subject_token_type: ACCESS, subject_issuer: 'ext' }),
    ).rejects.toMatchObject({
      error: 'invalid_request',
      error_description: 'User already exists',
    });
  });

  it.each([
    ['no subject_token', { subject_token_type: ACCESS, subject_issuer: 'ext' }, 'invalid_request'],
    [
      'an unknown subject_token_type',
      { subject_token: 'x', subject_token_type: 'urn:ietf:params:oauth:token-type:saml2', subject_issuer: 'ext' },
      'invalid_request',
    ],
    [
      'an unknown requested_token_type',
      {
        subject_token: 'x',
        subject_token_type: ACCESS,
        subject_issuer: 'ext',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      },
      'invalid_request',
    ],
    ['no subject_issuer', { subject_token: 'x', subject_token_type: ACCESS }, 'invalid_request'],
    [
      'an unknown subject_issuer',
      { subject_token: 'x', subject_token_type: ACCESS, subject_issuer: 'nobody' },
      'invalid_request',
    ],
  ])('refuses %s with %s', async (_case, params, error) => {
    await expect(exchange(params as Record<string, string>)).rejects.toMatchObject({ error });
  });

  it('is for trusted partners only (unauthorized_client)', async () => {
    const untrusted = await relyingParty(app, 'dev1', 'untrusted', 'untrusted-secret-0123456789');
    const sub = externalUser();
    await expect(
      exchange(
        { subject_token: await idp.accessToken(sub), subject_token_type: ACCESS, subject_issuer: 'ext' },
        untrusted,
      ),
    ).rejects.toMatchObject({
      error: 'unauthorized_client',
    });
  });
});

describe('brokered login (kc_idp_hint)', () => {
  async function brokeredLogin(agent: UserAgent, extra: Record<string, string> = {}) {
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      kc_idp_hint: 'ext',
      ...extra,
    });
    const hop = await agent.follow(url.href, REDIRECT);
    return { hop, verifier };
  }

  async function accountOf(hop: { location: string | null }, verifier: string): Promise<string> {
    const tokens = await client.authorizationCodeGrant(rp, new URL(hop.location!), { pkceCodeVerifier: verifier });
    return String(tokens.claims()!.sub);
  }

  it('skips the login page, provisions a new account, and logs the linked identity in again later', async () => {
    const email = uniqueEmail('broker');
    idp.nextLogin = externalUser(email);
    const first = await brokeredLogin(new UserAgent());
    expect(first.hop.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?code=/);
    const userId = await accountOf(first.hop, first.verifier);
    expect(
      (await call(app.url, `/auth/user/${userId}`, { token: (await exchangeFor(idp.nextLogin)).access_token })).body
        .username,
    ).toBe(email);

    const second = await brokeredLogin(new UserAgent());
    expect(await accountOf(second.hop, second.verifier)).toBe(userId);
  });

  it('links the external identity to the account already signed in', async () => {
    const local = await signUp(app, 'linker');
    const agent = new UserAgent();
    const login = await agent.follow(
      client.buildAuthorizationUrl(rp, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      }).href,
      REDIRECT,
    );
    await agent.submit(login, { username: local.email, password: local.password }, REDIRECT);
    idp.nextLogin = externalUser(uniqueEmail('other-address'));
    const linked = await brokeredLogin(agent, { prompt: 'login' });
    expect(await accountOf(linked.hop, linked.verifier)).toBe(local.userid);
    const fresh = await brokeredLogin(new UserAgent());
    expect(await accountOf(fresh.hop, fresh.verifier)).toBe(local.userid);
  });

  it('asks an existing account with the same email to sign in once, then links it', async () => {
    const local = await signUp(app, 'existing');
    idp.nextLogin = externalUser(local.email);
    const agent = new UserAgent();
    const { hop, verifier } = await brokeredLogin(agent);
    expect(hop.status).toBe(200);
    expect(hop.body).toContain('An account with this email already exists');
    expect(hop.body).toContain(`value="${local.email}"`);
    const back = await agent.submit(hop, { username: local.email, password: local.password }, REDIRECT);
    expect(await accountOf(back, verifier)).toBe(local.userid);
    const later = await brokeredLogin(new UserAgent());
    expect(await accountOf(later.hop, later.verifier)).toBe(local.userid);
  });

  it('shows the login page when the provider refuses', async () => {
    idp.nextLogin = undefined;
    const { hop } = await brokeredLogin(new UserAgent());
    expect(hop.status).toBe(400);
  });
});

async function exchangeFor(sub: string) {
  return client.genericGrantRequest(rp, TOKEN_EXCHANGE, {
    subject_token: await idp.accessToken(sub),
    subject_token_type: ACCESS,
    subject_issuer: 'ext',
  });
}
