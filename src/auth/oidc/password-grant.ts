import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { retryAfterOf } from '../../kernel/errors';
import type { AccountDirectory } from '../accounts';
import type { LoginGuard } from '../login-guard';
import { isTrustedPartner } from './clients';
import { issueUserTokens, type ResourceServerInfo } from './issue-tokens';
import { grantedScope } from './scopes';

export function invalidGrant(description: string, detail = description): Error {
  const error = new errors.InvalidGrant(detail);
  error.error_description = description;
  return error;
}

function required(ctx: KoaContextWithOIDC, name: string): string {
  const value = ctx.oidc.params?.[name];
  if (typeof value !== 'string' || value === '')
    throw new errors.InvalidRequest(`missing required parameter '${name}'`);
  return value;
}

/**
 * A spent password budget as the token endpoint answers it: 429, Retry-After and OAuth's
 * `temporarily_unavailable` (what the endpoint's own rate limit answers). Other errors pass.
 */
function budgetRefusal(ctx: KoaContextWithOIDC, error: unknown): unknown {
  const retryAfter = retryAfterOf(error);
  if (retryAfter === undefined) return error;
  ctx.set('Retry-After', String(retryAfter));
  const refusal = new errors.OIDCProviderError(429, 'temporarily_unavailable');
  refusal.error_description = (error as Error).message;
  return refusal;
}

/**
 * Resource Owner Password Credentials (RFC 6749 §4.3), for trusted partner clients only, as
 * Keycloak's "direct access grants".
 */
export function registerPasswordGrant(
  provider: Provider,
  resourceServer: ResourceServerInfo,
  accounts: AccountDirectory,
  guard: LoginGuard,
): void {
  provider.registerGrantType(
    'password',
    async (ctx: KoaContextWithOIDC) => {
      const client = ctx.oidc.client!;
      if (!isTrustedPartner(client as never)) {
        throw new errors.UnauthorizedClient('the password grant is only available to trusted partner clients');
      }
      const username = required(ctx, 'username');
      const password = required(ctx, 'password');
      const scope = grantedScope(ctx.oidc.requestParamScopes);
      const account = await guard.verify(username, password, ctx.ip, 'password_grant').catch((error: unknown) => {
        throw budgetRefusal(ctx, error);
      });
      if (!account) throw invalidGrant('Invalid user credentials');
      const { grantId: _grantId, ...body } = await issueUserTokens(provider, resourceServer, {
        accountId: account.id,
        client,
        scope,
        gty: 'password',
        refreshToken: true,
        idTokenClaims: accounts.claims(account),
        ctx,
      });
      ctx.body = body;
    },
    ['username', 'password', 'scope'],
  );
}
