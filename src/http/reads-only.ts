import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** What a router of GET routes answers: GET, HEAD (express serves it with GET's route) and OPTIONS (its Allow list). */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Hands `router` only the requests it could answer, when it holds GET routes alone: every other
 * request (a GraphQL POST, a REST write) passes by without walking its routes, which cost every
 * such request some time and garbage for nothing.
 */
export function readsOnly(router: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!READS.has(req.method)) return next();
    return router(req, res, next);
  };
}
