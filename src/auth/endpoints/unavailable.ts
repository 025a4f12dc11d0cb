import type { NextFunction, Request, Response } from 'express';
import { isDatabaseUnavailable } from '../../infra/database/availability';
import type { Logger } from '../../infra/logger';
import { messagePage, PAGE_HEADERS } from '../interactions/pages';
import { OAuthError, sendOAuthError } from './oauth-errors';

/** How long clients are asked to wait before trying again while the database is away. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * What an OIDC endpoint says while the database is away: OAuth's `temporarily_unavailable` (RFC
 * 6749 §4.1.2.1), naming only the kind of dependency, never a host, port or path.
 */
export const DATABASE_UNAVAILABLE = 'The database is unavailable; try again shortly';

export function unavailableError(): OAuthError {
  return new OAuthError('temporarily_unavailable', DATABASE_UNAVAILABLE, 503);
}

/**
 * The same in an oidc-provider (Koa) answer being built: 503, Retry-After, and OAuth's JSON
 * unless a page was already rendered.
 */
export function answerUnavailable(ctx: {
  status: number;
  body: unknown;
  set(name: string, value: string): void;
}): void {
  ctx.status = 503;
  ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
  ctx.set('Cache-Control', 'no-store');
  if (typeof ctx.body !== 'string') {
    const { error, description } = unavailableError();
    ctx.body = { error, error_description: description };
  }
}

/** The browser's page for the same, on the realm's login pages. */
export function unavailablePage(realm: string): string {
  return messagePage({ realm, title: 'Temporarily unavailable' }, DATABASE_UNAVAILABLE);
}

/**
 * Under /realms/{realm}: a database outage in Islet's own OIDC routes (userinfo, introspection,
 * revocation, login pages) answers 503, as JSON to API clients and as a page to browsers. Other
 * errors go on to the application's handler.
 */
export function realmUnavailable(logger: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (!isDatabaseUnavailable(error) || res.headersSent) return next(error);
    logger.warn({ err: error, dependency: 'database', path: req.path }, 'dependency unavailable');
    res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    const realm = String(req.params.realm ?? '');
    if (req.accepts(['json', 'html']) === 'html') {
      res.status(503).set(PAGE_HEADERS).type('html').send(unavailablePage(realm));
      return;
    }
    sendOAuthError(res, unavailableError());
  };
}
