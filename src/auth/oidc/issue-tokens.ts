import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { API_RESOURCE } from './provider';

type Client = NonNullable<KoaContextWithOIDC['oidc']['client']>;
export type ResourceServerInfo = ConstructorParameters<Provider['ResourceServer']>[1];

export interface IssuedTokens {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  id_token?: string;
  scope: string;
  /** The grant behind the tokens: revoking it ends the session. */
  grantId: string;
}

export interface UserTokenRequest {
  accountId: string;
  client: Client;
  scope: string;
  /** The grant type recorded on the tokens (`password`, token exchange, `legacy`). */
  gty: string;
  refreshToken: boolean;
  /** Claims for an ID token; issued when present and `openid` is in scope (needs `ctx`). */
  idTokenClaims?: Record<string, unknown>;
  ctx?: KoaContextWithOIDC;
}

/**
 * Creates a grant for the account and issues its tokens, for the grants the provider does not
 * implement itself (password, token exchange) and for legacy sessions minted outside a request.
 */
export async function issueUserTokens(
  provider: Provider,
  resourceServerInfo: ResourceServerInfo,
  request: UserTokenRequest,
): Promise<IssuedTokens> {
  const { accountId, client, scope, gty, ctx } = request;
  const grant = new provider.Grant({ accountId, clientId: client.clientId });
  grant.addOIDCScope(scope);
  grant.addResourceScope(API_RESOURCE, scope);
  const grantId = await grant.save();
  ctx?.oidc.entity('Grant', grant);

  const accessToken = new provider.AccessToken({ accountId, client, grantId, gty, scope });
  accessToken.resourceServer = new provider.ResourceServer(API_RESOURCE, resourceServerInfo);
  ctx?.oidc.entity('AccessToken', accessToken);
  const tokens: IssuedTokens = {
    access_token: await accessToken.save(),
    token_type: 'Bearer',
    expires_in: accessToken.expiration,
    scope,
    grantId,
  };
  if (request.refreshToken && client.grantTypeAllowed('refresh_token')) {
    const refreshToken = new provider.RefreshToken({
      accountId,
      client,
      grantId,
      gty,
      scope,
      resource: API_RESOURCE,
      rotations: 0,
    });
    ctx?.oidc.entity('RefreshToken', refreshToken);
    tokens.refresh_token = await refreshToken.save();
  }
  if (ctx && request.idTokenClaims && scope.split(' ').includes('openid')) {
    const idToken = new provider.IdToken({ ...request.idTokenClaims, sub: accountId }, { ctx });
    (idToken as unknown as { scope: string }).scope = scope;
    idToken.set('sid', grantId);
    tokens.id_token = await idToken.issue({ use: 'idtoken' });
  }
  return tokens;
}

/** A fresh access token for an existing grant (legacy session refresh); null when the grant is gone. */
export async function reissueAccessToken(
  provider: Provider,
  resourceServerInfo: ResourceServerInfo,
  grantId: string,
): Promise<{ access_token: string; expires_in: number } | null> {
  const grant = await provider.Grant.find(grantId);
  if (!grant?.accountId || !grant.clientId) return null;
  const client = await provider.Client.find(grant.clientId);
  if (!client) return null;
  const scope = grant.getOIDCScope();
  const accessToken = new provider.AccessToken({ accountId: grant.accountId, client, grantId, gty: 'legacy', scope });
  accessToken.resourceServer = new provider.ResourceServer(API_RESOURCE, resourceServerInfo);
  return { access_token: await accessToken.save(), expires_in: accessToken.expiration };
}

/** Ends a session: its refresh tokens, codes and the grant itself; its access tokens stop at once. */
export async function revokeGrant(provider: Provider, grantId: string): Promise<void> {
  await Promise.all([
    provider.RefreshToken.revokeByGrantId(grantId),
    provider.AuthorizationCode.revokeByGrantId(grantId),
  ]);
  const grant = await provider.Grant.find(grantId);
  await grant?.destroy();
}
