import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withDatabase } from '../../src/infra/database/postgres-server';
import { adminQuery, quoteIdent, testPostgresAdminUrl } from '../support/postgres';
import { startChild, type ChildServer } from './harness';

/** AGPs the bench's service remembers: fewer than the zones the AGP scenario asks in turn, so its computed row always computes. */
export const REMEMBERED_IN_BENCH = 256;

/**
 * The environment and Node flags `npm start` gives the service (package.json: `VAR=value … node
 * <flags> dist/src/main.js`), so the bench and the soak measure that process.
 */
function serviceCommand(): { env: Record<string, string>; flags: string[] } {
  const packageJson = path.resolve(__dirname, '../../../package.json');
  const { scripts } = JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { scripts: Record<string, string> };
  const [, assignments = '', flags = ''] = /((?:\w+=\S+ )*)node (.*?) ?dist\/src\/main\.js/.exec(scripts.start) ?? [];
  const env = Object.fromEntries(
    assignments
      .split(' ')
      .filter(Boolean)
      .map((assignment) => [
        assignment.slice(0, assignment.indexOf('=')),
        assignment.slice(assignment.indexOf('=') + 1),
      ]),
  );
  return { env, flags: flags.split(' ').filter(Boolean) };
}

export const CLIENT_SECRET = 'bench-client-secret-0123456789';

/** A trusted partner (password grant) and a backend service (client credentials). */
export const BENCH_CLIENTS = [
  {
    client_id: 'bench-partner',
    client_secret: CLIENT_SECRET,
    grant_types: ['password', 'refresh_token'],
    trusted_partner: true,
  },
  {
    client_id: 'bench-backend',
    client_secret: CLIENT_SECRET,
    grant_types: ['client_credentials'],
    realm_roles: ['backend_service'],
  },
];
export const SERVER_SECRET = 'bench-server-secret-0123456789';

export interface BenchEnvironment {
  app: ChildServer;
  floor: ChildServer;
  databaseUrl: string;
  /** The service's DATA_DIR (its filesystem object store lives in there). */
  dataDir: string;
  /** The object-store variables the service and the floor server were given (S3_*), if any. */
  storeEnv: Record<string, string>;
  /**
   * A second service on the same database reading from a streaming replica (the `replicas`
   * scenario): the patient list and TIDE rows are measured on it too.
   */
  replica?: ChildServer;
  close(): Promise<void>;
}

/** The filesystem store: S3 variables of the bench's own environment are not passed on. */
export const NO_S3 = { S3_ENDPOINT: '', S3_ACCESS_KEY: '', S3_SECRET_KEY: '', S3_BUCKET: '' };

/**
 * A fresh database, the service (compiled, its own process) and the floor server beside it.
 * `storeEnv` picks the object store (S3_* variables); without it, the filesystem store.
 */
export async function startBenchEnvironment(
  storeEnv: Record<string, string> = {},
  label = 'main',
): Promise<BenchEnvironment> {
  const { adminUrl } = await testPostgresAdminUrl();
  const name = `islet_bench_${process.pid}_${label}`;
  await adminQuery(adminUrl, `drop database if exists ${quoteIdent(name)}`);
  await adminQuery(adminUrl, `create database ${quoteIdent(name)}`);
  const databaseUrl = withDatabase(adminUrl, name);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-bench-'));
  const dist = path.resolve(__dirname, '../..');
  const clientsFile = path.join(dataDir, 'clients.json');
  fs.writeFileSync(clientsFile, JSON.stringify({ dev1: BENCH_CLIENTS }));
  const store = { ...NO_S3, ...storeEnv };
  const app = await startService({ databaseUrl, dataDir, clientsFile, store });
  const floor = await startChild(path.join(dist, 'test/bench/floor-server.js'), {
    ISLET_URL: publicUrl(app.url),
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    ...store,
  });
  return {
    app,
    floor,
    databaseUrl,
    dataDir,
    storeEnv: store,
    async close() {
      await Promise.all([app.stop(), floor.stop()]);
      await adminQuery(adminUrl, `drop database if exists ${quoteIdent(name)} with (force)`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The compiled service in a process of its own, as deployed: production mode, clients from a
 * file, access logs on. `extraEnv` changes a setting (a second instance measured side by side).
 */
export async function startService(
  {
    databaseUrl,
    dataDir,
    clientsFile,
    store,
  }: { databaseUrl: string; dataDir: string; clientsFile: string; store: Record<string, string> },
  extraEnv: Record<string, string> = {},
): Promise<ChildServer> {
  const dist = path.resolve(__dirname, '../..');
  const command = serviceCommand();
  return startChild(
    path.join(dist, 'src/main.js'),
    {
      ...command.env,
      NODE_ENV: 'production',
      // Required in production; the benchmarks send no mail.
      SMTP_URL: 'smtp://127.0.0.1:9',
      MAIL_FROM: 'Islet <no-reply@islet.test>',
      LEGACY_REALM: 'dev1',
      // Throughput is what is measured here, so the per-address token limit is off and the
      // password budget out of reach (the login-flood scenario measures it, in a service of its own).
      TOKEN_RATE_LIMIT: '0',
      PASSWORD_CHECKS_PER_SECOND: '100000',
      HOST: '127.0.0.1',
      OIDC_CLIENTS_FILE: clientsFile,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      SERVER_SECRET,
      SQL_STATEMENT_HEADER: 'true',
      AGP_CACHE_ENTRIES: String(REMEMBERED_IN_BENCH),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      ...store,
      ...extraEnv,
    },
    '/healthz',
    command.flags,
  );
}

/** The service names itself by "localhost"; its issuers use that name. */
export function publicUrl(url: string): string {
  return url.replace('127.0.0.1', 'localhost');
}
