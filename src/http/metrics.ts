import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { errorBody } from './http-errors';
import type { Config } from '../config';
import { registry } from '../infra/metrics';

const digest = (value: string) => createHash('sha256').update(value).digest();

function bearerMatches(req: Request, token: string): boolean {
  const presented = /^bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}

/**
 * `GET /metrics` in Prometheus text format. With METRICS_TOKEN set it answers only
 * `Authorization: Bearer <METRICS_TOKEN>`; without it, only outside production (where it does
 * not exist, as far as callers can tell) or on METRICS_PORT (`privatePort`), which only the
 * operator's network reaches.
 */
export function metricsEndpoint(
  config: Pick<Config, 'nodeEnv' | 'metricsToken'>,
  { privatePort = false }: { privatePort?: boolean } = {},
): RequestHandler {
  return async (req: Request, res: Response) => {
    if (config.metricsToken === undefined && config.nodeEnv === 'production' && !privatePort) {
      res.status(404).json(errorBody(404, `No route for ${req.method} ${req.path}`));
      return;
    }
    if (config.metricsToken !== undefined && !bearerMatches(req, config.metricsToken)) {
      res.status(401).set('WWW-Authenticate', 'Bearer').json(errorBody(401, 'A valid metrics token is required'));
      return;
    }
    res
      .set('Content-Type', registry.contentType)
      .set('Cache-Control', 'no-store')
      .send(await registry.metrics());
  };
}
