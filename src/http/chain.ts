import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Handlers that always run together at one mount, as one express layer. Express matches every
 * layer of its stack against the request's path and allocates for each layer it enters; the edge
 * every request passes (headers, request id, deadline, guards) and the /graphql steps cost one
 * layer each this way instead of one per handler.
 *
 * Errors leave as they would from layers of their own: a handler's `next(error)`, its throw and
 * its rejected promise (express 5 catches those) go to express's error handlers, and the handlers
 * after it do not run.
 */
export function chain(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      const handler = handlers[index++];
      if (!handler) return next();
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise)
          result.catch((rejection: unknown) => next(rejection ?? new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
