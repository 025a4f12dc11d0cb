import express from 'express';
import type { Config } from '../../config';
import { rateLimit } from '../../http/rate-limit';
import { SharedRateLimiter } from '../../infra/rate-limits/shared-rate-limiter';
import type { Logger } from '../../infra/logger';
import type { Services } from '../../service-catalog';
import type { Orm } from '../../infra/database/orm';
import { AccountPages } from '../interactions/account-pages';
import { InteractionRoutes } from '../interactions/interaction-routes';
import { messagePage, PAGE_HEADERS } from '../pages/pages';
import { formGuard } from './form-body';
import { realmOf } from './realm-router';
import { TokenEndpoints } from './token-endpoints';

/**
 * The specification's authorization requests are OpenID Connect requests: without `openid` in
 * the scope they are refused on a page (not redirected: nothing has checked redirect_uri yet).
 */
function requireOpenIdScope(req: express.Request, res: express.Response, next: express.NextFunction): void {
  const scope = typeof req.query.scope === 'string' ? req.query.scope.split(' ') : [];
  if (scope.includes('openid')) return next();
  res
    .status(400)
    .set(PAGE_HEADERS)
    .send(
      messagePage(
        { realm: realmOf(res).realm, title: 'Invalid request' },
        'invalid_scope: the scope must include openid',
      ),
    );
}

/** Islet's own routes under /realms/{realm}, served before the realm's provider. */
export function realmRoutes(services: Services, config: Config, logger: Logger, orm: Orm): express.Router {
  const router = express.Router();
  // One budget for every instance (src/infra/rate-limits), not one each.
  const limiter = config.tokenRateLimit > 0 ? new SharedRateLimiter(orm, config.tokenRateLimit) : undefined;
  router.post(
    '/protocol/openid-connect/token',
    rateLimit(limiter, (req, res) => `${realmOf(res).realm}:${req.ip}`),
    formGuard,
  );
  // The other forms oidc-provider reads itself: a POSTed authorization request and logout.
  router.post(
    ['/protocol/openid-connect/auth', '/protocol/openid-connect/logout', '/protocol/openid-connect/logout/confirm'],
    formGuard,
  );
  router.get('/protocol/openid-connect/auth', requireOpenIdScope);
  router.use(new TokenEndpoints(services.verifier, services.revocations, services.accountDirectory).router());
  router.use(
    new InteractionRoutes(
      services.guard,
      services.broker,
      services.brokerLogin,
      services.brokerStates,
      logger,
      new AccountPages(services.signupConfirmations, services.passwordResets, () => orm.em.fork(), logger),
    ).router(),
  );
  return router;
}
