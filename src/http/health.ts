import express from 'express';
import type { Orm } from '../infra/database/orm';
import { sqlOutsideTransactions } from '../infra/database/sql-outside-transactions';
import type { ObjectStore } from '../infra/object-store/object-store';
import { requestLogger } from './request-context';

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms).unref(),
    ),
  ]);

/**
 * `/healthz`: the process serves requests. `/readyz`: its database and object store answer too;
 * it says which is down (`"unavailable"`), while why (endpoints, paths) goes to the log.
 */
export function healthRouter(orm: Orm, objectStore: ObjectStore): express.Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const dependencies = ['database', 'objectStore'] as const;
    const checks = await Promise.allSettled([
      withTimeout(sqlOutsideTransactions(orm).rows('select 1'), 2000, 'database'),
      withTimeout(objectStore.ping(), 2000, 'object store'),
    ]);
    const states = checks.map((check, index) => {
      if (check.status === 'fulfilled') return 'ok';
      requestLogger(res)?.warn({ err: check.reason, dependency: dependencies[index] }, 'readiness check failed');
      return 'unavailable';
    });
    const ready = checks.every((check) => check.status === 'fulfilled');
    res
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ready' : 'unavailable', database: states[0], objectStore: states[1] });
  });
  return router;
}
