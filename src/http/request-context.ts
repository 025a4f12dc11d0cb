import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { requestScope, type Logger } from '../infra/logger';
import { httpRequestDuration, httpRequests } from '../infra/metrics';

/**
 * A client's X-Request-Id is kept when it is 1 to 128 letters, digits and `_ . : -`, so a proxy's
 * or an app's trace id follows the request through the service's log and the access log; anything
 * else gets an id of the service's own. Only a label: a client may send any id, and the same one
 * many times, so nothing is keyed, deduplicated or looked up by it.
 */
const INCOMING_ID = /^[\w.:-]{1,128}$/;

/**
 * The path as the client sent it, for logs: `req.path` lacks what express mounts stripped (by
 * the time a response ends, /graphql reads "/"), and the query string may hold secrets.
 */
export function requestedPath(req: Request): string {
  const queryStart = req.originalUrl.indexOf('?');
  return queryStart === -1 ? req.originalUrl : req.originalUrl.slice(0, queryStart);
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The route a request matched, as a template (`/v1/users/:userId/datasets`), for metrics: raw
 * paths carry ids and would make a label per user. Mounted apps without routes of their own
 * (/graphql, a realm's provider) count under their mount; nothing matched is `unmatched`.
 */
export function routeTemplate(req: Request): string {
  const mount = req.baseUrl.replace(/^\/realms\/[^/]+/, '/realms/:realm');
  const route = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof route === 'string') return `${mount}${route}`;
  return mount || 'unmatched';
}

/**
 * Gives every request an id (the caller's X-Request-Id when sane), binds it to every log line
 * written while serving the request (`res.locals.logger` writes them too), and writes one access
 * log line when the response ends.
 * With `exposeStatementCount` the response also says how many SQL statements it cost
 * (X-Sql-Statements), for tests and benchmarks.
 */
export function requestContext(logger: Logger, exposeStatementCount: boolean) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    const scope = { requestId, sqlStatements: 0 };
    const started = process.hrtime.bigint();
    res.setHeader('X-Request-Id', requestId);
    // For what answers a request before (or without) its Scope: health checks, edge refusals.
    res.locals.logger = logger;
    if (exposeStatementCount) {
      const writeHead = res.writeHead;
      res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
        this.setHeader('X-Sql-Statements', String(scope.sqlStatements));
        return writeHead.apply(this, args);
      } as Response['writeHead'];
    }
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = routeTemplate(req);
      const method = METHODS.has(req.method) ? req.method : 'other';
      httpRequests.inc({ route, method, status: String(res.statusCode) });
      httpRequestDuration.observe({ route, method }, ms / 1000);
      requestScope.run(scope, () =>
        logger.info(
          {
            method: req.method,
            path: requestedPath(req),
            status: res.statusCode,
            ms: Math.round(ms * 10) / 10,
            sql: scope.sqlStatements,
          },
          'request',
        ),
      );
    });
    requestScope.run(scope, next);
  };
}

/** The service's logger, which names the request's id (set by requestContext). */
export function requestLogger(res: Response): Logger | undefined {
  return res.locals.logger as Logger | undefined;
}
