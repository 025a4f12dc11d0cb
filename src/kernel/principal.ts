import type { Realm } from '../config';

/**
 * Who is calling, decided once at the edge from the presented token. Domain services decide
 * what that caller may do; nothing else looks at tokens.
 */
export interface Principal {
  /** The account acting, or null for anonymous callers and service accounts. */
  userId: string | null;
  /** A server (backend_service) token: trusted by every access rule. */
  isServer: boolean;
  realm: Realm | null;
  clientId: string | null;
  scopes: string[];
  /** The OIDC grant behind a user token; revoking it ends the session at once. */
  grantId: string | null;
  /** Unix seconds; null for anonymous callers. */
  expiresAt: number | null;
}

export const ANONYMOUS: Principal = Object.freeze({
  userId: null,
  isServer: false,
  realm: null,
  clientId: null,
  scopes: [],
  grantId: null,
  expiresAt: null,
});

export function isAuthenticated(principal: Principal): boolean {
  return principal.isServer || principal.userId !== null || principal.clientId !== null;
}
