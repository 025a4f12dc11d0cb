import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../../config';
import type { Orm } from '../../infra/database/orm';
import type { Logger } from '../../infra/logger';
import { tokenGrants } from '../../infra/metrics';
import type { AccountDirectory } from '../accounts';
import { verifyClientSecret } from './client-secrets';
import { CUSTOM_CLIENT_PROPERTIES, allowsLoopbackRedirect, realmRolesOf } from './clients';
import { SIGNING_ALG, type RealmKeyMaterial } from './keys';
import { PostgresAdapter } from './postgres-adapter';
import { jsonNotFound } from './not-found';
import { shapeTokenResponses } from './token-response';
import { consumeOnSuccess } from './consume-on-success';
import { SUPPORTED_SCOPES } from './scopes';
import { loadExistingGrant } from './consent';
import { isDatabaseUnavailable } from '../../infra/database/availability';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../kernel/errors';
import { answerUnavailable, unavailablePage } from './unavailable';
import { logoutPage, messagePage, PAGE_HEADERS, pageHeaders } from '../pages/pages';

/** The resource every API access token is issued for; its audience is what the API accepts. */
export const API_RESOURCE = 'urn:islet:api';
export const API_AUDIENCE = 'islet-api';

/** Keycloak's endpoint paths under /realms/{realm}. */
export const KEYCLOAK_ROUTES = {
  authorization: '/protocol/openid-connect/auth',
  token: '/protocol/openid-connect/token',
  jwks: '/protocol/openid-connect/certs',
  userinfo: '/protocol/openid-connect/userinfo',
  end_session: '/protocol/openid-connect/logout',
  revocation: '/protocol/openid-connect/revoke',
  introspection: '/protocol/openid-connect/token/introspect',
  pushed_authorization_request: '/protocol/openid-connect/ext/par/request',
};

export interface RealmProviderOptions {
  realm: string;
  issuer: string;
  orm: Orm;
  keys: RealmKeyMaterial;
  config: Config;
  accounts: AccountDirectory;
  logger: Logger;
  onGrantDestroyed: (realm: string, grantId: string) => Promise<void>;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function lifetimes(config: Config): Configuration['ttl'] {
  return {
    AccessToken: config.accessTokenTtl,
    ClientCredentials: config.accessTokenTtl,
    IdToken: config.accessTokenTtl,
    AuthorizationCode: 60,
    Interaction: 15 * 60,
    Session: config.sessionMaxTtl,
    Grant: config.sessionMaxTtl,
    // Idle timeout, never beyond the session's maximum lifetime (Keycloak's SSO Session Max).
    RefreshToken: (_ctx, token) => {
      const started = (token as { iiat?: number }).iiat ?? nowSeconds();
      return Math.max(1, Math.min(config.refreshTokenTtl, started + config.sessionMaxTtl - nowSeconds()));
    },
  };
}

/** How access tokens for the API look: JWTs for one audience, signed with the realm key. */
export function apiResourceServer(config: Config) {
  return {
    scope: SUPPORTED_SCOPES.join(' '),
    audience: API_AUDIENCE,
    accessTokenFormat: 'jwt' as const,
    accessTokenTTL: config.accessTokenTtl,
    jwt: { sign: { alg: SIGNING_ALG as 'RS256' } },
  };
}

/** The provider's error page: 503 with Retry-After while the database is away. */
function renderErrorPage(realm: string): NonNullable<Configuration['renderError']> {
  return async (ctx, out, error) => {
    ctx.type = 'html';
    ctx.set(PAGE_HEADERS);
    if (isDatabaseUnavailable(error)) {
      ctx.status = 503;
      ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      ctx.body = unavailablePage(realm);
      return;
    }
    ctx.body = messagePage({ realm, title: 'Something went wrong' }, `${out.error}: ${out.error_description ?? ''}`);
  };
}

/** RP-initiated logout with Islet's pages. */
function logoutPages(realm: string, issuer: string) {
  return {
    enabled: true,
    logoutSource: async (ctx: KoaContextWithOIDC, form: string) => {
      // The form posts to the realm's confirm endpoint, then goes on to the checked post-logout URI.
      const after = ctx.oidc.params?.post_logout_redirect_uri;
      ctx.set(pageHeaders([`${issuer}/`, ...(typeof after === 'string' ? [after] : [])]));
      ctx.body = logoutPage({ realm, title: 'Sign out' }, form);
    },
    postLogoutSuccessSource: async (ctx: KoaContextWithOIDC) => {
      ctx.set(PAGE_HEADERS);
      ctx.body = messagePage({ realm, title: 'Signed out' }, 'You have been signed out. You can close this window.');
    },
  };
}

/** Keycloak-shaped access tokens: who the client is, its realm roles, and the session. */
const keycloakShapedJwt: NonNullable<NonNullable<Configuration['formats']>['customizers']>['jwt'] = async (
  _ctx,
  token,
  jwt,
) => {
  const client = (token as { client?: Parameters<typeof realmRolesOf>[0] }).client;
  const grantId = (token as { grantId?: string }).grantId;
  jwt.payload.azp = jwt.payload.client_id;
  jwt.payload.realm_access = { roles: client ? realmRolesOf(client) : [] };
  if (grantId) jwt.payload.sid = grantId;
};

/** The realm's cookies: named after it, scoped to its path, never readable by scripts. */
function realmCookies(realm: string, cookieKeys: string[]): Configuration['cookies'] {
  return {
    keys: cookieKeys,
    names: {
      session: `_islet_${realm}_session`,
      interaction: `_islet_${realm}_interaction`,
      resume: `_islet_${realm}_resume`,
    },
    long: { httpOnly: true, sameSite: 'lax', path: `/realms/${realm}/` },
    short: { httpOnly: true, sameSite: 'lax' },
  };
}

/**
 * Clients as Islet keeps them: secrets are stored hashed (compared by verifyClientSecret), and
 * clients that ask for it may redirect to any loopback port (RFC 8252 §7.3).
 */
function adaptClientChecks(provider: Provider): void {
  const clientPrototype = provider.Client.prototype as unknown as {
    clientSecret: string;
    compareClientSecret(presented: string): Promise<boolean>;
    redirectUriAllowed(uri: string): boolean;
  };
  clientPrototype.compareClientSecret = async function (presented) {
    return verifyClientSecret(presented, this.clientSecret);
  };
  const exactRedirect = clientPrototype.redirectUriAllowed;
  clientPrototype.redirectUriAllowed = function (uri) {
    return exactRedirect.call(this, uri) || allowsLoopbackRedirect(this as never, uri);
  };
}

export function createRealmProvider(options: RealmProviderOptions): Provider {
  const { realm, issuer, orm, keys, config, accounts } = options;
  const resourceServer = apiResourceServer(config);
  const provider = new Provider(issuer, {
    adapter: (model: string) => new PostgresAdapter(orm, realm, model, options.onGrantDestroyed),
    jwks: { keys: keys.signing as never[] },
    clientDefaults: {
      id_token_signed_response_alg: SIGNING_ALG,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    // Secrets are stored hashed, which rules out methods that use the secret as an HMAC key.
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    extraClientMetadata: { properties: [...CUSTOM_CLIENT_PROPERTIES] },
    routes: KEYCLOAK_ROUTES,
    responseTypes: ['code'],
    scopes: SUPPORTED_SCOPES,
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username'] },
    conformIdTokenClaims: false,
    interactions: { url: async (_ctx, interaction) => `/realms/${realm}/login-actions/${interaction.uid}` },
    extraParams: ['kc_idp_hint'],
    loadExistingGrant,
    renderError: renderErrorPage(realm),
    discovery: {
      userinfo_endpoint: `${issuer}${KEYCLOAK_ROUTES.userinfo}`,
      introspection_endpoint: `${issuer}${KEYCLOAK_ROUTES.introspection}`,
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint: `${issuer}${KEYCLOAK_ROUTES.revocation}`,
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    },
    allowOmittingSingleRegisteredRedirectUri: false,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // Access tokens are JWTs the provider does not store: Islet serves these three itself
      // (src/auth/endpoints/token-endpoints.ts) and advertises them below.
      introspection: { enabled: false },
      revocation: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: logoutPages(realm, issuer),
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf ?? API_RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async () => resourceServer,
      },
    },
    formats: { customizers: { jwt: keycloakShapedJwt } },
    ttl: lifetimes(config),
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    findAccount: async (_ctx, sub) => {
      const account = await accounts.findById(sub);
      if (!account) return undefined;
      return { accountId: account.id, claims: async () => ({ ...accounts.claims(account), sub: account.id }) };
    },
    cookies: realmCookies(realm, keys.cookieKeys),
  });
  adaptClientChecks(provider);
  // Every URL the provider publishes (discovery, form actions, redirects, the resume cookie's
  // path) hangs off the issuer, so off PUBLIC_URL: never off the request's Host header (whatever a
  // client sends there) nor X-Forwarded-Host. The realm's mount point is the issuer's path.
  provider.OIDCContext.prototype.urlFor = function (name, options) {
    return `${issuer}${provider.pathFor(name, { ...options, mountPath: '' })}`;
  };
  // Behind a TLS-terminating proxy: client addresses for lockouts and Secure cookies.
  // Exactly the configured proxy hops are trusted: the client address is the one the farthest
  // trusted proxy appended, never a leftmost X-Forwarded-For entry the client itself wrote.
  provider.proxy = config.trustProxy > 0;
  provider.maxIpsCount = config.trustProxy;
  provider.use(jsonNotFound(new URL(issuer).pathname));
  // Outside shapeTokenResponses, so it sees the status that response finally has.
  provider.use(consumeOnSuccess());
  provider.use(shapeTokenResponses());
  watchErrors(provider, realm, options.logger);
  return provider;
}

const GRANT_TYPES = new Set([
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'password',
  'urn:ietf:params:oauth:grant-type:token-exchange',
]);

/** A token request at /metrics: grant types outside the supported ones count as "other" (they are client input). */
function countGrant(realm: string, ctx: KoaContextWithOIDC, outcome: string): void {
  const grantType = (ctx.oidc?.params as { grant_type?: unknown } | undefined)?.grant_type;
  tokenGrants.inc({
    realm,
    grant_type: typeof grantType === 'string' && GRANT_TYPES.has(grantType) ? grantType : 'other',
    outcome: /^[a-z_]{1,40}$/.test(outcome) ? outcome : 'other',
  });
}

function watchErrors(provider: Provider, realm: string, logger: Logger): void {
  provider.on('server_error', (ctx: KoaContextWithOIDC, error: Error) => {
    // Emitted while the answer is being built, before it is sent: a database outage is a 503
    // (a page already rendered by renderError, or OAuth's JSON), never a 500.
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error, realm, route: ctx.oidc?.route, dependency: 'database' }, 'dependency unavailable');
      answerUnavailable(ctx);
      return;
    }
    logger.error({ err: error, realm, route: ctx.oidc?.route }, 'oidc provider failed');
  });
  provider.on('grant.error', (ctx: KoaContextWithOIDC, error: Error & { error?: string; error_detail?: string }) => {
    logger.info({ realm, error: error.message, detail: error.error_detail }, 'token request refused');
    countGrant(realm, ctx, typeof error.error === 'string' ? error.error : 'server_error');
  });
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => countGrant(realm, ctx, 'success'));
}
