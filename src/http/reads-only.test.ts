import { describe, expect, it } from '@jest/globals';
import express, { type Request, type Response, type Router } from 'express';
import { readsOnly } from './reads-only';

/** `router` with a count of the requests handed to it, and readsOnly around it. */
function counted(router: Router) {
  let entered = 0;
  const spy = Object.assign(
    (req: Request, res: Response, next: () => void) => {
      entered += 1;
      router(req, res, next);
    },
    { stack: router.stack },
  ) as unknown as Router;
  const handler = readsOnly(spy);
  return {
    /** Whether a request of `method` on `path` entered the router. */
    enters(method: string, path: string): boolean {
      const before = entered;
      handler({ method, path, url: path } as Request, {} as Response, () => undefined);
      return entered > before;
    },
  };
}

describe('readsOnly', () => {
  // A real express router: if an upgrade moved its routes out of `stack`, these would all enter.
  const router = express.Router();
  router.get('/healthz', (_req, res) => res.end());
  router.get('/docs/assets/start.js', (_req, res) => res.end());

  it('hands the router reads of the paths its routes begin with, whatever their case', () => {
    const { enters } = counted(router);
    expect(
      ['/healthz', '/HealthZ', '/healthz/', '/docs', '/docs/assets/start.js'].map((path) => enters('GET', path)),
    ).toEqual([true, true, true, true, true]);
    expect(enters('HEAD', '/healthz')).toBe(true);
    expect(enters('OPTIONS', '/healthz')).toBe(true);
  });

  it('passes other paths and every write by without entering the router', () => {
    const { enters } = counted(router);
    expect(enters('GET', '/auth/user')).toBe(false);
    expect(enters('GET', '/')).toBe(false);
    expect(enters('GET', '/healthzz')).toBe(false);
    expect(enters('POST', '/healthz')).toBe(false);
  });

  it('hands every read to a router whose routes could answer any path', () => {
    const withParameter = express.Router();
    withParameter.get('/:page', (_req, res) => res.end());
    const withMiddleware = express.Router();
    withMiddleware.use((_req, _res, next) => next());
    expect(counted(withParameter).enters('GET', '/anything')).toBe(true);
    expect(counted(withMiddleware).enters('GET', '/anything')).toBe(true);
    expect(counted(withMiddleware).enters('POST', '/anything')).toBe(false);
  });
});
