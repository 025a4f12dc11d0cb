import express from 'express';
import type { Orm } from '../infra/database/orm';
import type { ObjectStore } from '../infra/object-store/object-store';

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms).unref(),
    ),
  ]);

/** `/healthz`: the process serves requests. `/readyz`: its database and object store answer too. */
export function healthRouter(orm: Orm, objectStore: ObjectStore): express.Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const checks = await Promise.allSettled([
      withTimeout(orm.em.getConnection().execute('select 1'), 2000, 'database'),
      withTimeout(objectStore.ping(), 2000, 'object store'),
    ]);
    const [database, store] = checks.map((check) =>
      check.status === 'fulfilled' ? 'ok' : String(check.reason?.message ?? check.reason),
    );
    const ready = checks.every((check) => check.status === 'fulfilled');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', database, objectStore: store });
  });
  return router;
}
