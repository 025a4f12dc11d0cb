import type { IncomingHttpHeaders } from 'node:http';
import { unauthenticated } from '../kernel/errors';
import { ANONYMOUS, type Principal } from '../kernel/principal';
import { presentedToken } from './credentials';
import type { SessionRevocations } from './session-revocations';
import type { TokenVerifier, VerifiedToken } from './token-verifier';

/**
 * Turns a request's credentials into its Principal, once, at the edge. Besides the signature,
 * a user token is only good while its session lives: logout, refresh-token reuse and account
 * deletion end the session, and with it every access token issued for it, at once.
 */
export class Authenticator {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly revocations: SessionRevocations,
  ) {}

  async principal(headers: IncomingHttpHeaders): Promise<Principal> {
    const token = presentedToken(headers);
    if (token === null) return ANONYMOUS;
    const verified = await this.verifier.verify(token);
    if (isRevoked(this.revocations, verified)) throw unauthenticated('Session has ended; log in again');
    return toPrincipal(verified);
  }

  /**
   * Whether the session behind a principal authenticated earlier still lives: what a long-lived
   * connection (a GraphQL subscription) asks before each event, as a request would at its start.
   */
  isLive(principal: Principal): boolean {
    if (principal.realm === null || principal.grantId === null) return true;
    return !this.revocations.isRevoked(principal.realm, principal.grantId);
  }
}

/** A user token dies with its session; a service-account token can be revoked on its own. */
export function isRevoked(revocations: SessionRevocations, token: VerifiedToken): boolean {
  return revocations.isRevoked(token.realm, token.grantId ?? revocationKeyOfToken(token.tokenId));
}

export function revocationKeyOfToken(tokenId: string): string {
  return `jti:${tokenId}`;
}

export function toPrincipal(token: VerifiedToken): Principal {
  const isUserToken = token.grantId !== null;
  return {
    userId: isUserToken ? token.subject : null,
    isServer: token.isServer,
    realm: token.realm,
    clientId: token.clientId,
    scopes: token.scopes,
    grantId: token.grantId,
    expiresAt: token.expiresAt,
  };
}
