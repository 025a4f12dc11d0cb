import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/**
 * A second, independent OpenID provider (plain oidc-provider) playing the external identity
 * provider: brokered login and token exchange run against it over real HTTP. Logins are
 * scripted: `nextLogin` names the account its login page signs in, without a form.
 */
export interface ExternalIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  provider: Provider;
  accounts: Map<string, { email?: string; email_verified?: boolean }>;
  nextLogin: string | undefined;
  /** Redirect URIs under this prefix are accepted (Islet's broker endpoints, known once it runs). */
  redirectPrefix: string;
  /** An opaque access token for `sub` (validated at userinfo). */
  accessToken(sub: string): Promise<string>;
  /** A JWT access token for `sub`, signed with the provider's key. */
  jwtAccessToken(sub: string): Promise<string>;
  close(): Promise<void>;
}

export const EXTERNAL_API = 'urn:external:api';

export async function startExternalIdp(): Promise<ExternalIdp> {
  const app = express();
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const key = {
    ...(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as JWK),
    kid: 'ext-1',
    alg: 'RS256',
    use: 'sig',
  };
  const accounts = new Map<string, { email?: string; email_verified?: boolean }>();
  const clientId = 'islet-broker';
  const clientSecret = 'external-idp-secret-0123456789';
  const claimsOf = (sub: string) => ({ sub, ...accounts.get(sub) });

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(),
    jwks: { keys: [key as never] },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: ['http://127.0.0.1/placeholder'],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    scopes: ['openid', 'email', 'profile'],
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf ?? undefined,
        useGrantedResource: async () => false,
        getResourceServerInfo: async () => ({
          scope: 'openid email',
          audience: EXTERNAL_API,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
        }),
      },
    },
    findAccount: async (_ctx: KoaContextWithOIDC, sub: string) =>
      accounts.has(sub) ? { accountId: sub, claims: async () => claimsOf(sub) } : undefined,
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client!.clientId,
        accountId: ctx.oidc.session!.accountId,
      });
      grant.addOIDCScope([...ctx.oidc.requestParamOIDCScopes].join(' '));
      await grant.save();
      return grant;
    },
    interactions: { url: async (_ctx, interaction) => `/login/${interaction.uid}` },
    ttl: { AccessToken: 300, IdToken: 300, Grant: 3600, Session: 3600, Interaction: 600, RefreshToken: 3600 },
    cookies: { keys: ['external-idp-cookie-key'] },
    pkce: { required: () => true },
  });
  const idp: ExternalIdp = {
    issuer,
    clientId,
    clientSecret,
    provider,
    accounts,
    nextLogin: undefined,
    redirectPrefix: 'http://unset.invalid/',
    async accessToken(sub) {
      const client = (await provider.Client.find(clientId))!;
      return new provider.AccessToken({
        accountId: sub,
        client,
        scope: 'openid email',
        gty: 'test',
        grantId: await grantFor(sub),
      }).save();
    },
    async jwtAccessToken(sub) {
      const client = (await provider.Client.find(clientId))!;
      const token = new provider.AccessToken({
        accountId: sub,
        client,
        scope: 'openid email',
        gty: 'test',
        grantId: await grantFor(sub),
      });
      token.resourceServer = new provider.ResourceServer(EXTERNAL_API, {
        scope: 'openid email',
        audience: EXTERNAL_API,
        accessTokenFormat: 'jwt',
      });
      return token.save();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const grantFor = async (sub: string) => {
    const grant = new provider.Grant({ accountId: sub, clientId });
    grant.addOIDCScope('openid email');
    return grant.save();
  };
  const prototype = provider.Client.prototype as unknown as { redirectUriAllowed(uri: string): boolean };
  prototype.redirectUriAllowed = (uri: string) => uri.startsWith(idp.redirectPrefix);

  // The scripted login page: signs in whoever the test chose.
  app.get('/login/:uid', async (req, res) => {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name !== 'login' || !idp.nextLogin) {
      res.status(400).send('no scripted login');
      return;
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: idp.nextLogin } },
      { mergeWithLastSubmission: false },
    );
  });
  // userinfo also for this provider's JWT access tokens (oidc-provider only knows opaque ones).
  const localKeys = createLocalJWKSet({ keys: [{ kty: key.kty, n: key.n, e: key.e, kid: key.kid, alg: 'RS256' }] });
  app.get('/me', async (req, res, next) => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (token.split('.').length !== 3) return next();
    try {
      const { payload } = await jwtVerify(token, localKeys, { issuer, audience: EXTERNAL_API });
      res.json(claimsOf(String(payload.sub)));
    } catch {
      res.status(401).setHeader('WWW-Authenticate', 'Bearer error="invalid_token"').json({ error: 'invalid_token' });
    }
  });
  app.use(provider.callback());
  return idp;
}

/** Process-local storage for the test provider (oidc-provider's own warns it is dev-only). */
function memoryAdapter() {
  const records = new Map<string, Record<string, unknown>>();
  return (model: string) => ({
    upsert: async (id: string, payload: Record<string, unknown>) => void records.set(`${model}:${id}`, payload),
    find: async (id: string) => records.get(`${model}:${id}`) as never,
    findByUid: async (uid: string) =>
      [...records].find(([key, value]) => key.startsWith(`${model}:`) && value.uid === uid)?.[1] as never,
    findByUserCode: async () => undefined,
    consume: async (id: string) =>
      void Object.assign(records.get(`${model}:${id}`) ?? {}, { consumed: Math.floor(Date.now() / 1000) }),
    destroy: async (id: string) => void records.delete(`${model}:${id}`),
    revokeByGrantId: async (grantId: string) => {
      for (const [key, value] of records)
        if (key.startsWith(`${model}:`) && value.grantId === grantId) records.delete(key);
    },
  });
}
