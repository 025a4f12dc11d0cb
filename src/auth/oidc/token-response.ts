import type { KoaContextWithOIDC } from 'oidc-provider';
import { SUPPORTED_SCOPES } from './scopes';

type Next = () => Promise<unknown>;
type Body = Record<string, unknown>;

const GRANT_NOT_ALLOWED = 'requested grant type is not allowed for this client';

function unknownScopes(ctx: KoaContextWithOIDC): string[] {
  const requested = ctx.oidc.params?.scope;
  return typeof requested === 'string'
    ? requested.split(' ').filter((scope) => scope && !SUPPORTED_SCOPES.includes(scope))
    : [];
}

/**
 * Token responses as Keycloak shapes them: `refresh_expires_in` beside `expires_in` (0 when no
 * refresh token is issued); always a `scope`, as the specification's §2.10 lists it (an empty
 * one when nothing was granted, where oidc-provider leaves it out, e.g. client credentials asked
 * without a scope); RFC 6749's `unauthorized_client` when a client uses a grant it is not
 * allowed (oidc-provider says `invalid_request`); and `invalid_scope` for scopes this realm does
 * not know, which oidc-provider's client-credentials grant would silently drop (the token it
 * already built, an unstored JWT, is never sent).
 */
export function shapeTokenResponses() {
  return async (ctx: KoaContextWithOIDC, next: Next): Promise<void> => {
    await next();
    if (ctx.oidc?.route !== 'token' || !ctx.body || typeof ctx.body !== 'object') return;
    const body = ctx.body as Body;
    if (ctx.status === 200 && typeof body.access_token === 'string') {
      const unknown = unknownScopes(ctx);
      if (unknown.length) {
        ctx.status = 400;
        ctx.body = {
          error: 'invalid_scope',
          error_description: 'requested scope is not supported',
          scope: unknown.join(' '),
        };
        return;
      }
      const refreshToken = ctx.oidc.entities.RefreshToken as { remainingTTL?: number } | undefined;
      ctx.body = {
        ...body,
        scope: typeof body.scope === 'string' ? body.scope : '',
        refresh_expires_in: body.refresh_token && refreshToken ? (refreshToken.remainingTTL ?? 0) : 0,
      };
    } else if (body.error === 'invalid_request' && body.error_description === GRANT_NOT_ALLOWED) {
      ctx.body = { ...body, error: 'unauthorized_client' };
    }
  };
}
