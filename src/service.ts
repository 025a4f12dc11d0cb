import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import express from 'express';
import { createApp } from './app';
import { metricsEndpoint } from './http/metrics';
import { REQUEST_TIMEOUT_MS, uploadRequestTimeoutMs } from './http/request-deadline';
import type { Config } from './config';
import { entities } from './entities';
import { meterDatabasePool, migrate, openDatabase, routePreparedStatements, type Orm } from './infra/database/orm';
import { releaseLostConnectionsOf } from './infra/database/lost-connections';
import { resolvePostgres, type PostgresServer } from './infra/database/postgres-server';
import type { Logger } from './infra/logger';
import { createObjectStore } from './infra/object-store';
import { loadSecrets, type Secrets } from './infra/secrets';
import { shutdownSteps } from './infra/shutdown';

export interface RunningService {
  url: string;
  /** Where /metrics is served when METRICS_PORT is set. */
  metricsUrl: string | undefined;
  database: PostgresServer;
  orm: Orm;
  secrets: Secrets;
  /**
   * Stops accepting connections, lets in-flight requests finish (SHUTDOWN_TIMEOUT_MS at most),
   * then stops background work and closes the pool (another SHUTDOWN_TIMEOUT_MS at most).
   */
  close(): Promise<void>;
}

/** /metrics alone on METRICS_PORT, for Prometheus on the operator's network. */
async function metricsServer(config: Config): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(express().get('/metrics', metricsEndpoint(config, { privatePort: true })));
  const address = await listen(server, config.metricsPort!, config.host);
  return {
    url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/metrics`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function listen(server: http.Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
}

function publicUrl(config: Config, address: AddressInfo): string {
  if (config.publicUrl) return config.publicUrl;
  const host = ['0.0.0.0', '::', '127.0.0.1', '::1'].includes(address.address) ? 'localhost' : address.address;
  return `http://${host}:${address.port}`;
}

/**
 * Node's time for receiving a whole request. It is one value per server, so it is the longest
 * any request may take (an upload's, when longer than Node's 300 s); the app gives every
 * other request Node's default itself (src/http/request-deadline.ts).
 */
export const serverRequestTimeoutMs = (config: Config) =>
  Math.max(REQUEST_TIMEOUT_MS, uploadRequestTimeoutMs(config.uploadTimeoutSeconds * 1000));

/** config → infrastructure (embedded when unconfigured) → app → listening server. */
export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  const secrets = loadSecrets(config.dataDir, {
    serverSecret: config.serverSecret,
    devClientSecret: config.devClientSecret,
    production: config.nodeEnv === 'production',
  });
  const database = await resolvePostgres({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    port: config.embeddedPostgresPort,
    logger,
  });
  const orm = await openDatabase(database.url, entities, config.databasePoolSize, {
    replicaUrls: config.databaseReplicaUrls,
  });
  // What needs a session of its own (the migration lock, named prepared statements; LISTEN in
  // src/composition/auth.ts) bypasses a transaction-mode pooler in DATABASE_URL.
  const directUrl = config.databaseDirectUrl ?? database.url;
  const applied = await migrate(orm, directUrl);
  if (applied.length) logger.info({ migrations: applied }, 'applied database migrations');
  const closePreparedPool = await routePreparedStatements(orm, directUrl);
  const objectStore = createObjectStore(config);
  const unmeterPool = await meterDatabasePool(orm);
  // Else a connection cut mid-transaction stays lent: the pool shrinks, and closing it waits for it.
  await releaseLostConnectionsOf(orm);

  // Listening comes first because issuers derive from the bound port; until the app is built,
  // requests get a prompt 503 instead of waiting unanswered.
  let handler: http.RequestListener = (_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ code: 503, reason: 'The service is starting', error: 0 }));
  };
  const server = http.createServer({ requestTimeout: serverRequestTimeoutMs(config) }, (req, res) => handler(req, res));
  // WebSocket upgrades (GraphQL subscriptions) wait for the app like requests do: refused until then.
  let upgrade: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void = (_req, socket) => socket.destroy();
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => upgrade(req, socket, head));
  server.keepAliveTimeout = 65_000;
  const address = await listen(server, config.port, config.host);
  const url = publicUrl(config, address);
  const app = await createApp({ config, logger, orm, objectStore, baseUrl: url, secrets }).catch(async (error) => {
    // A start-up refused (e.g. a DEV_CLIENT_SECRET that contradicts the stored one) leaves nothing open.
    await new Promise((resolve) => server.close(resolve));
    unmeterPool();
    await closePreparedPool();
    await orm.close();
    await database.stop();
    throw error;
  });
  handler = app.handler;
  const metrics = config.metricsPort === undefined ? undefined : await metricsServer(config);
  upgrade = (req, socket, head) => app.websocket.upgrade(req, socket, head);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      // Live subscriptions never end on their own: close them (1001) so the server can drain.
      const liveClosed = app.websocket.close();
      server.closeIdleConnections();
      // A keep-alive connection whose last request ends during shutdown turns idle only then:
      // close those as they come, or shutdown would wait for each client to hang up.
      const idle = setInterval(() => server.closeIdleConnections(), 100);
      const deadline = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs).unref();
      await Promise.all([drained, liveClosed, metrics?.close()]);
      clearInterval(idle);
      clearTimeout(deadline);
      // Background work and the pool then share one more SHUTDOWN_TIMEOUT_MS, so stopping ends.
      const step = shutdownSteps(logger, Date.now() + config.shutdownTimeoutMs);
      await app.close(step);
      unmeterPool();
      await step('the database pool', async () => {
        await closePreparedPool();
        await orm.close();
      });
      await database.stop();
    })();
    return closing;
  };
  return { url, metricsUrl: metrics?.url, database, orm, secrets, close };
}
