import type { NextFunction, Request, Response, Router } from 'express';

/** What a router of GET routes answers: GET, HEAD (express serves it with GET's route) and OPTIONS (its Allow list). */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The first segment of a path, lower-cased: `/Docs/x` → `docs`, `/` → ``. */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

/**
 * The first segments of `router`'s route paths, or null when one is not a fixed text (a
 * parameter, a pattern) or the router holds middleware, which may answer any path. Express's
 * routers list their layers in `stack` (not in its typings); reads-only.test.ts fails if an upgrade
 * changes that, as every request would then walk the router again.
 */
function routeSegments(router: Router): Set<string> | null {
  const segments = new Set<string>();
  for (const layer of router.stack as { route?: { path?: unknown } }[]) {
    const path = layer.route?.path;
    if (typeof path !== 'string' || !path.startsWith('/')) return null;
    const segment = firstSegment(path);
    if (/[:*?(){}\\]/.test(segment)) return null;
    segments.add(segment);
  }
  return segments;
}

/**
 * Hands `router` only the requests it could answer, when it holds GET routes alone: every other
 * request (a GraphQL POST, a REST call) passes by without entering it, as entering a router and
 * walking its routes cost every such request some time and garbage for nothing. A request is
 * handed on when its method reads and its path's first segment (express matches paths without
 * regard to case) is one of the routes'. The routes are read on the first request, all added by then.
 */
export function readsOnly(router: Router) {
  let segments: Set<string> | null | undefined;
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!READS.has(req.method)) return next();
    segments ??= routeSegments(router);
    if (segments && !segments.has(firstSegment(req.path))) return next();
    router(req, res, next);
  };
}
