import express, { type Request, type Response } from 'express';
import { isDatabaseUnavailable } from '../../infra/database/availability';
import type { AccountDirectory } from '../accounts';
import { isRevoked, revocationKeyOfToken } from '../authenticator';
import { revokeGrant } from '../oidc/issue-tokens';
import type { RealmRuntime } from '../realms';
import { realmOf } from './realm-router';
import type { SessionRevocations } from '../session-revocations';
import type { TokenVerifier, VerifiedToken } from '../token-verifier';
import { authenticateClient } from './client-auth';
import { formBody } from './form-body';
import { OAuthError } from '../oauth-error';
import { sendOAuthError } from './oauth-errors';

/** A token that cannot be read is no token, unless the database is away: that is a 503. */
function notFoundUnlessUnavailable(error: unknown): undefined {
  if (isDatabaseUnavailable(error)) throw error;
  return undefined;
}

const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** Claims each scope releases at userinfo. */
const SCOPE_CLAIMS: Record<string, string[]> = {
  openid: ['sub'],
  email: ['email', 'email_verified'],
  profile: ['preferred_username'],
};

/**
 * userinfo, introspection and revocation for the realm's JWT access tokens, which
 * oidc-provider does not store and so cannot serve itself. Refresh tokens (opaque, stored)
 * are looked up through the provider.
 */
export class TokenEndpoints {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly revocations: SessionRevocations,
    private readonly accounts: AccountDirectory,
  ) {}

  router(): express.Router {
    const router = express.Router();
    const handle = (action: (req: Request, res: Response, runtime: RealmRuntime) => Promise<void>) => {
      return async (req: Request, res: Response) => {
        const runtime = realmOf(res);
        try {
          await action(req, res, runtime);
        } catch (error) {
          if (!(error instanceof OAuthError)) throw error;
          if (error.error === 'invalid_token')
            res.setHeader('WWW-Authenticate', `Bearer realm="${runtime.realm}", error="invalid_token"`);
          sendOAuthError(res, error, runtime.issuer);
        }
      };
    };
    router.all(
      '/protocol/openid-connect/userinfo',
      formBody,
      handle((req, res, runtime) => this.userinfo(req, res, runtime)),
    );
    router.post(
      '/protocol/openid-connect/token/introspect',
      formBody,
      handle((req, res, runtime) => this.introspect(req, res, runtime)),
    );
    router.post(
      '/protocol/openid-connect/revoke',
      formBody,
      handle((req, res, runtime) => this.revoke(req, res, runtime)),
    );
    return router;
  }

  /** A valid, unrevoked access token of this realm (never of another realm), else null. */
  private async accessToken(runtime: RealmRuntime, token: string): Promise<VerifiedToken | null> {
    if (!JWT_SHAPE.test(token)) return null;
    const verified = await this.verifier.verify(token).catch(() => null);
    if (!verified || verified.realm !== runtime.realm || isRevoked(this.revocations, verified)) return null;
    return verified;
  }

  private async userinfo(req: Request, res: Response, runtime: RealmRuntime): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'POST') throw new OAuthError('invalid_request', 'use GET or POST', 405);
    const header = /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const token = header?.[1] ?? (req.method === 'POST' ? (req.body?.access_token as string | undefined) : undefined);
    if (!token) throw new OAuthError('invalid_request', 'no access token provided', 401);
    const verified = await this.accessToken(runtime, token);
    if (!verified || verified.grantId === null) throw new OAuthError('invalid_token', 'invalid token provided', 401);
    if (!verified.scopes.includes('openid'))
      throw new OAuthError('insufficient_scope', 'the openid scope is required', 403);
    const account = await this.accounts.findById(verified.subject);
    if (!account) throw new OAuthError('invalid_token', 'invalid token provided', 401);
    const claims = this.accounts.claims(account);
    const released = new Set(verified.scopes.flatMap((scope) => SCOPE_CLAIMS[scope] ?? []));
    res.setHeader('Cache-Control', 'no-store');
    res.json(Object.fromEntries(Object.entries(claims).filter(([name]) => released.has(name))));
  }

  private async introspect(req: Request, res: Response, runtime: RealmRuntime): Promise<void> {
    await authenticateClient(runtime.provider, req, { allowPublic: false });
    const token = req.body?.token as string | undefined;
    if (!token) throw new OAuthError('invalid_request', "missing required parameter 'token'");
    res.setHeader('Cache-Control', 'no-store');
    const access = await this.accessToken(runtime, token);
    if (access) {
      const { claims } = access;
      const account = access.grantId ? await this.accounts.findById(access.subject) : null;
      res.json({
        active: true,
        token_type: 'Bearer',
        ...claims,
        ...(account ? { username: this.accounts.claims(account).preferred_username } : {}),
      });
      return;
    }
    const refresh = await runtime.provider.RefreshToken.find(token).catch(notFoundUnlessUnavailable);
    const grantAlive = refresh?.grantId && !this.revocations.isRevoked(runtime.realm, refresh.grantId);
    if (refresh && !refresh.isExpired && !refresh.consumed && grantAlive) {
      res.json({
        active: true,
        token_type: 'refresh_token',
        client_id: refresh.clientId,
        sub: refresh.accountId,
        scope: refresh.scope,
        exp: refresh.exp,
        iat: refresh.iat,
        iss: runtime.issuer,
        sid: refresh.grantId,
      });
      return;
    }
    res.json({ active: false });
  }

  /** RFC 7009: revoking any token of a session ends the session; unknown tokens are not an error. */
  private async revoke(req: Request, res: Response, runtime: RealmRuntime): Promise<void> {
    const client = await authenticateClient(runtime.provider, req, { allowPublic: true });
    const token = req.body?.token as string | undefined;
    if (!token) throw new OAuthError('invalid_request', "missing required parameter 'token'");
    const access = await this.accessToken(runtime, token);
    const refresh = access
      ? undefined
      : await runtime.provider.RefreshToken.find(token).catch(notFoundUnlessUnavailable);
    const owner = access?.clientId ?? refresh?.clientId;
    if (owner !== undefined && owner !== client.clientId) {
      throw new OAuthError('invalid_request', 'client is not authorized to revoke the presented token');
    }
    if (access?.grantId || refresh?.grantId) {
      await revokeGrant(runtime.provider, (access?.grantId ?? refresh?.grantId)!);
    } else if (access) {
      await this.revocations.revoke(runtime.realm, revocationKeyOfToken(access.tokenId));
    }
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).end();
  }
}
