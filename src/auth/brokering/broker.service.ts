import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import * as client from 'openid-client';
import type { Realm } from '../../config';
import type { UsersService } from '../../domains/users/users.service';
import type { Orm } from '../../infra/database/orm';
import { isAppError } from '../../kernel/errors';
import type { IdentityLinks } from './identity-links';
import type { IdentityProviders, IdentityProviderSettings } from './identity-providers';

/** Who someone is at an external provider. */
export interface ExternalIdentity {
  subject: string;
  email?: string;
  emailVerified: boolean;
}

/** The account an external identity signs in as, or the email that blocks creating one. */
export type Resolution = { userId: string } | { existingEmail: string } | { missingEmail: true };

export class InvalidSubjectToken extends Error {}

function identityOf(claims: Record<string, unknown>): ExternalIdentity {
  if (typeof claims.sub !== 'string' || !claims.sub) throw new InvalidSubjectToken('the token names no subject');
  return {
    subject: claims.sub,
    email: typeof claims.email === 'string' ? claims.email : undefined,
    emailVerified: claims.email_verified === true,
  };
}

/**
 * Identity brokering: proving who someone is at an external provider, and which account that
 * identity signs in as (linked before, linked now to the signed-in account, or provisioned).
 */
export class BrokerService {
  private readonly keySets = new Map<string, JWTVerifyGetKey>();

  constructor(
    readonly providers: IdentityProviders,
    private readonly links: IdentityLinks,
    private readonly users: UsersService,
    private readonly orm: Orm,
  ) {}

  /**
   * Validates a token-exchange subject token: an access token by asking the provider's
   * userinfo; a JWT by its signature when the provider is set to validate signatures, else by
   * userinfo as well.
   */
  async identityFromSubjectToken(
    realm: Realm,
    provider: IdentityProviderSettings,
    token: string,
    kind: 'access_token' | 'jwt',
  ): Promise<ExternalIdentity> {
    const configuration = await this.providers.configuration(realm, provider);
    try {
      if (kind === 'jwt' && provider.validate_signature !== false) {
        const { payload } = await jwtVerify(token, this.keysOf(realm, provider, configuration), {
          issuer: configuration.serverMetadata().issuer,
          ...(provider.audience ? { audience: provider.audience } : {}),
        });
        if (typeof payload.email === 'string') return identityOf(payload);
        // Access tokens rarely carry the email; the provider's userinfo knows it.
        const claims = await client.fetchUserInfo(configuration, token, String(payload.sub)).catch(() => ({}));
        return identityOf({ ...claims, ...payload });
      }
      const claims = await client.fetchUserInfo(configuration, token, client.skipSubjectCheck);
      return identityOf(claims as Record<string, unknown>);
    } catch (error) {
      if (error instanceof InvalidSubjectToken) throw error;
      throw new InvalidSubjectToken(error instanceof Error ? error.message : String(error));
    }
  }

  /** The identity behind a completed authorization-code login at the provider. */
  async identityFromLogin(
    configuration: client.Configuration,
    tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
  ): Promise<ExternalIdentity> {
    const claims: Record<string, unknown> = tokens.claims() ?? {};
    if (typeof claims.email === 'string') return identityOf(claims);
    const info = await client.fetchUserInfo(configuration, tokens.access_token, String(claims.sub));
    return identityOf(info as Record<string, unknown>);
  }

  /**
   * The account for an external identity: its linked account; else the signed-in account, now
   * linked; else a new account provisioned from the identity's email and linked. An existing
   * account with that email is never taken over silently.
   */
  async resolve(realm: Realm, alias: string, identity: ExternalIdentity, signedIn: string | null): Promise<Resolution> {
    const em = this.orm.em.fork();
    const linked = await this.links.find(em, realm, alias, identity.subject);
    if (linked && (await this.users.findById(em, linked))) return { userId: linked };
    if (signedIn) {
      await this.links.link(em, realm, alias, identity.subject, signedIn, identity.email);
      return { userId: signedIn };
    }
    if (!identity.email) return { missingEmail: true };
    if (await this.users.findByEmail(em, identity.email)) return { existingEmail: identity.email };
    try {
      const user = await this.users.provision(em, identity.email, identity.emailVerified);
      await this.links.link(em, realm, alias, identity.subject, user.id, identity.email);
      return { userId: user.id };
    } catch (error) {
      if (isAppError(error) && error.code === 'CONFLICT') return { existingEmail: identity.email };
      throw error;
    }
  }

  /** Links an identity to an account that has just proven itself (first brokered login). */
  async link(realm: Realm, alias: string, identity: ExternalIdentity, userId: string): Promise<void> {
    await this.links.link(this.orm.em.fork(), realm, alias, identity.subject, userId, identity.email);
  }

  private keysOf(
    realm: Realm,
    provider: IdentityProviderSettings,
    configuration: client.Configuration,
  ): JWTVerifyGetKey {
    const key = `${realm}:${provider.alias}`;
    let keys = this.keySets.get(key);
    if (!keys) {
      const jwksUri = configuration.serverMetadata().jwks_uri;
      if (!jwksUri) throw new InvalidSubjectToken(`${provider.alias} publishes no keys`);
      keys = createRemoteJWKSet(new URL(jwksUri));
      this.keySets.set(key, keys);
    }
    return keys;
  }
}
