import express, { type NextFunction, type Request, type Response } from 'express';
import type { RealmRuntime, Realms } from '../realms';

/**
 * `/realms/{realm}/...`: Islet's own per-realm routes (`own`: login pages, userinfo, ...) and
 * then the realm's provider; `failed` answers what they throw. An unknown realm is a JSON 404.
 */
export function realmsRouter(realms: Realms, own: express.Router, failed: express.ErrorRequestHandler): express.Router {
  const router = express.Router();
  router.use(
    '/:realm',
    (req: Request, res: Response, next: NextFunction) => {
      const runtime = realms.get(String(req.params.realm));
      if (!runtime) {
        res
          .status(404)
          .json({ error: 'not_found', error_description: `Realm "${String(req.params.realm)}" does not exist` });
        return;
      }
      res.locals.realm = runtime;
      next();
    },
    own,
    (req: Request, res: Response) => realmOf(res).handle(req, res),
    failed,
  );
  return router;
}

/** The realm a request under /realms/{realm} addresses. */
export function realmOf(res: Response): RealmRuntime {
  return res.locals.realm as RealmRuntime;
}
