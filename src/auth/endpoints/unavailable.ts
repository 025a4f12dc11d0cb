import type { NextFunction, Request, Response } from 'express';
import { isDatabaseUnavailable } from '../../infra/database/availability';
import type { Logger } from '../../infra/logger';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../kernel/errors';
import { unavailableError, unavailablePage } from '../oidc/unavailable';
import { PAGE_HEADERS } from '../pages/pages';
import { sendOAuthError } from './oauth-errors';

/**
 * Under /realms/{realm}: a database outage in Islet's own OIDC routes (userinfo, introspection,
 * revocation, login pages) answers 503, as JSON to API clients and as a page to browsers. Other
 * errors go on to the application's handler.
 */
export function realmUnavailable(logger: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (!isDatabaseUnavailable(error) || res.headersSent) return next(error);
    logger.warn({ err: error, dependency: 'database', path: req.path }, 'dependency unavailable');
    res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    const realm = String(req.params.realm ?? '');
    if (req.accepts(['json', 'html']) === 'html') {
      res.status(503).set(PAGE_HEADERS).type('html').send(unavailablePage(realm));
      return;
    }
    sendOAuthError(res, unavailableError());
  };
}
