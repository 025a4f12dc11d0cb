import { timingSafeEqual, createHash } from 'node:crypto';
import type { Realm } from '../config';
import { AppError, invalid, unauthenticated } from '../kernel/errors';
import type { Principal } from '../kernel/principal';
import type { Scope } from '../kernel/scope';
import type { UserRecord } from '../domains/users/user.entity';
import type { NewAccount, UsersService } from '../domains/users/users.service';
import type { Authenticator } from './authenticator';
import type { LoginGuard } from './login-guard';
import { LEGACY_CLIENT_ID, SERVER_CLIENT_ID } from './oidc/clients';
import { issueUserTokens, reissueAccessToken, revokeGrant } from './oidc/issue-tokens';
import { endSessionsOfAccount } from './oidc/postgres-adapter';
import type { SessionRevocations } from './session-revocations';
import type { Orm } from '../infra/database/orm';
import { API_RESOURCE } from './oidc/provider';
import type { Realms, RealmRuntime } from './realms';

export interface Session {
  token: string;
  expiresAt: Date;
  /** The user id, or the client id of a server session. */
  subject: string;
  isServer: boolean;
}

export interface TokenInfo {
  /** The user id, or the client id of a server token. */
  userId: string;
  isServer: boolean;
  expiresAt: Date;
}

const sameSecret = (a: string, b: string) => {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
};

/**
 * Tidepool's legacy session API on top of the OIDC realms: a legacy login is a grant of the
 * internal legacy client in LEGACY_REALM, its token an ordinary API access token.
 */
export class SessionsService {
  constructor(
    private readonly realms: Realms,
    private readonly users: UsersService,
    private readonly authenticator: Authenticator,
    private readonly guard: LoginGuard,
    private readonly revocations: SessionRevocations,
    private readonly orm: Orm,
    private readonly settings: { legacyRealm: Realm; serverSecret: string },
  ) {}

  private legacyRealm(): RealmRuntime {
    return this.realms.get(this.settings.legacyRealm)!;
  }

  /** Opens a legacy session for an account that has already proven who it is. */
  async open(userId: string): Promise<Session> {
    const { provider, resourceServer } = this.legacyRealm();
    const client = await provider.Client.find(LEGACY_CLIENT_ID);
    if (!client) throw new Error(`client ${LEGACY_CLIENT_ID} is not registered`);
    const tokens = await issueUserTokens(provider, resourceServer, {
      accountId: userId,
      client,
      scope: 'openid email profile',
      gty: 'legacy',
      refreshToken: false,
    });
    return { token: tokens.access_token, expiresAt: expiry(tokens.expires_in), subject: userId, isServer: false };
  }

  async signUp(scope: Scope, input: NewAccount): Promise<{ session: Session; user: UserRecord }> {
    // Hashing the new password costs what a check does, so it draws on the same budget.
    await this.guard.admitHash(scope.remoteAddress, 'sign_up');
    const user = await this.users.signUp(scope, input);
    return { session: await this.open(user.id), user };
  }

  async logIn(scope: Scope, loginName: string, password: string): Promise<{ session: Session; user: UserRecord }> {
    if (!loginName || !password) throw invalid('Missing id and/or password', loginName ? 'password' : 'username');
    const account = await this.guard.verify(loginName, password, scope.remoteAddress, 'legacy_login');
    const user = account && (await this.users.findById(scope.em, account.id));
    if (!user) throw unauthenticated('No user matched the given details');
    return { session: await this.open(user.id), user };
  }

  /** A new token for the caller's legacy session. */
  async refresh(principal: Principal): Promise<Session> {
    if (principal.userId === null || principal.grantId === null || principal.realm === null) {
      throw unauthenticated('A user session token is required');
    }
    const { provider, resourceServer } = this.realms.get(principal.realm)!;
    const tokens = await reissueAccessToken(provider, resourceServer, principal.grantId);
    if (!tokens) throw unauthenticated('Session has ended; log in again');
    return {
      token: tokens.access_token,
      expiresAt: expiry(tokens.expires_in),
      subject: principal.userId,
      isServer: false,
    };
  }

  /** Ends the caller's session, if any; succeeds without one, as Tidepool's logout does. */
  async logOut(principal: Principal): Promise<void> {
    if (principal.grantId === null || principal.realm === null) return;
    await revokeGrant(this.realms.get(principal.realm)!.provider, principal.grantId);
  }

  /** Part of deleting an account: every session it has, in every realm, ends now. */
  async endAllSessionsOf(userId: string): Promise<void> {
    await endSessionsOfAccount(this.orm, userId, (realm, grantId) => this.revocations.revoke(realm, grantId));
  }

  /**
   * After a password change: every session and refresh token of the account ends, on every
   * instance, except the session that made the change (when the account itself made it).
   */
  async endOtherSessionsOf(userId: string, by: Principal): Promise<void> {
    const keep =
      by.userId === userId && by.realm !== null && by.grantId !== null
        ? { realm: by.realm, grantId: by.grantId }
        : null;
    await endSessionsOfAccount(this.orm, userId, (realm, grantId) => this.revocations.revoke(realm, grantId), keep);
  }

  async serverLogIn(name: string, secret: string): Promise<Session> {
    if (!name || !secret) throw invalid('Missing id and/or password', name ? 'secret' : 'name');
    if (!sameSecret(secret, this.settings.serverSecret)) throw unauthenticated('Wrong password');
    const { provider, resourceServer } = this.legacyRealm();
    const client = await provider.Client.find(SERVER_CLIENT_ID);
    if (!client) throw new Error(`client ${SERVER_CLIENT_ID} is not registered`);
    const token = new provider.ClientCredentials({ client, scope: 'openid' });
    token.resourceServer = new provider.ResourceServer(API_RESOURCE, resourceServer);
    return {
      token: await token.save(),
      expiresAt: expiry(token.expiration),
      subject: SERVER_CLIENT_ID,
      isServer: true,
    };
  }

  /** What a token stands for: the caller's own, or (server tokens only) another one. */
  async tokenInfo(scope: Scope, token?: string | null): Promise<TokenInfo> {
    const caller = scope.principal;
    if (caller.expiresAt === null) throw unauthenticated('No x-tidepool-session-token was found');
    let subject = caller;
    if (token) {
      if (!caller.isServer) throw new AppError('FORBIDDEN', 'Only a server token may inspect another token');
      subject = await this.authenticator.principal({ 'x-tidepool-session-token': token });
    }
    return {
      userId: subject.userId ?? subject.clientId ?? '',
      isServer: subject.isServer,
      expiresAt: new Date(subject.expiresAt! * 1000),
    };
  }
}

function expiry(seconds: number): Date {
  return new Date(Date.now() + seconds * 1000);
}
