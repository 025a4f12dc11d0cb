import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
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
      const account = await guard.verify(username, password, ctx.ip, 'password_grant');
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
