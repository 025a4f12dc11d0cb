import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import type { Config } from '../config';
import { metricsEndpoint } from './metrics';

const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

async function scrape(
  config: Pick<Config, 'nodeEnv' | 'metricsToken'>,
  authorization?: string,
  options: { privatePort?: boolean } = {},
) {
  const app = express().get('/metrics', metricsEndpoint(config, options));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return fetch(`http://127.0.0.1:${port}/metrics`, { headers: authorization ? { authorization } : {} });
}

describe('GET /metrics', () => {
  it('is open outside production and does not exist in production without METRICS_TOKEN', async () => {
    expect((await scrape({ nodeEnv: 'development', metricsToken: undefined })).status).toBe(200);
    expect((await scrape({ nodeEnv: 'test', metricsToken: undefined })).status).toBe(200);
    const production = await scrape({ nodeEnv: 'production', metricsToken: undefined }, 'Bearer anything');
    expect(production.status).toBe(404);
  });

  it('needs the bearer METRICS_TOKEN wherever one is set', async () => {
    const token = 'scrape-token-0123456789';
    for (const nodeEnv of ['production', 'development'] as const) {
      expect((await scrape({ nodeEnv, metricsToken: token })).status).toBe(401);
      expect((await scrape({ nodeEnv, metricsToken: token }, `Bearer ${token}x`)).status).toBe(401);
      const reply = await scrape({ nodeEnv, metricsToken: token }, `Bearer ${token}`);
      expect(reply.status).toBe(200);
      expect(await reply.text()).toContain('islet_login_failures_total');
    }
  });

  it('is open on METRICS_PORT in production, where only the operator’s network reaches', async () => {
    const reply = await scrape({ nodeEnv: 'production', metricsToken: undefined }, undefined, { privatePort: true });
    expect(reply.status).toBe(200);
  });
});
