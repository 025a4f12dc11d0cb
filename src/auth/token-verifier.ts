import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Realm } from '../config';
import { unauthenticated } from '../kernel/errors';
import { BACKEND_SERVICE_ROLE } from './oidc/clients';
import { SIGNING_ALG } from './oidc/keys';
import { API_AUDIENCE } from './oidc/provider';
import type { RealmRuntime, Realms } from './realms';

export interface VerifiedToken {
  realm: Realm;
  subject: string;
  clientId: string;
  scopes: string[];
  isServer: boolean;
  /** The grant (login session) of a user token; absent on service-account tokens. */
  grantId: string | null;
  /** Identifies this one token (revoking a service-account token revokes it by jti). */
  tokenId: string;
  expiresAt: number;
  claims: AccessTokenClaims;
}

export interface AccessTokenClaims extends JWTPayload {
  client_id?: string;
  scope?: string;
  sid?: string;
  realm_access?: { roles?: string[] };
}

/**
 * Verifies API access tokens locally: signature against the issuing realm's keys, issuer,
 * audience, type and expiry. A token of one realm never verifies with another realm's keys.
 * Clients send the same token on every call until it expires, so verified tokens are
 * remembered (by their exact text) until their expiry instead of re-checking the signature.
 */
export class TokenVerifier {
  private readonly verified = new LRUCache<string, VerifiedToken>({ max: 20_000 });

  constructor(private readonly realms: Realms) {}

  async verify(token: string): Promise<VerifiedToken> {
    const known = this.verified.get(token);
    if (known) {
      if (known.expiresAt * 1000 > Date.now()) return known;
      this.verified.delete(token);
      throw unauthenticated('Session token has expired');
    }
    const verified = await this.verifyOnce(token);
    this.verified.set(token, verified);
    return verified;
  }

  private async verifyOnce(token: string): Promise<VerifiedToken> {
    let issuer: string | undefined;
    let kid: string | undefined;
    try {
      issuer = decodeJwt(token).iss;
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw unauthenticated('Session token is malformed');
    }
    let runtime = issuer ? this.realms.forIssuer(issuer) : undefined;
    if (!runtime) throw unauthenticated('Session token was not issued by this server');
    if (kid && !runtime.keyIds.has(kid)) runtime = (await this.realms.refreshKeys(runtime.realm)) ?? runtime;
    const claims = await this.check(token, runtime);
    const roles = claims.realm_access?.roles ?? [];
    return {
      realm: runtime.realm,
      subject: String(claims.sub),
      clientId: String(claims.client_id ?? ''),
      scopes: (claims.scope ?? '').split(' ').filter(Boolean),
      isServer: roles.includes(BACKEND_SERVICE_ROLE),
      grantId: claims.sid ?? null,
      tokenId: String(claims.jti ?? ''),
      expiresAt: Number(claims.exp),
      claims,
    };
  }

  private async check(token: string, runtime: RealmRuntime): Promise<AccessTokenClaims> {
    try {
      const { payload } = await jwtVerify<AccessTokenClaims>(token, runtime.verificationKeys, {
        issuer: runtime.issuer,
        audience: API_AUDIENCE,
        typ: 'at+jwt',
        algorithms: [SIGNING_ALG],
        requiredClaims: ['sub', 'exp', 'client_id'],
      });
      return payload;
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw unauthenticated('Session token has expired');
      if (error instanceof errors.JWTClaimValidationFailed)
        throw unauthenticated('Session token is not an access token for this API');
      throw unauthenticated('Session token signature is invalid');
    }
  }
}
