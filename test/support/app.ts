import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config';
import { createLogger, type Logger } from '../../src/infra/logger';
import { LEFT_BEHIND } from '../../src/infra/shutdown';
import { startService, type RunningService } from '../../src/service';
import { createTestDatabase, type TestDatabase } from './database';

export interface TestApp {
  url: string;
  config: Config;
  service: RunningService;
  database: TestDatabase;
  devClientSecret: string;
  serverSecret: string;
  /** Stops the service (the database stays until `stop`). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export const DEV_CLIENT_SECRET = 'test-dev-client-secret-0123456789';
export const SERVER_SECRET = 'test-server-secret-0123456789';

export interface TestAppOptions {
  /** Receives each log line the service writes (set LOG_LEVEL in `env` to see them). */
  logTo?: (line: string) => void;
}

/**
 * The service's own logger (its format, its request-id binding), writing to `logTo` if given,
 * to stdout if TEST_LOG_LEVEL is set, and otherwise only the lines that name a shutdown step
 * left behind, on stderr: a run's output then says what kept a service from stopping.
 */
function testLogger(config: Config, { logTo }: TestAppOptions): Logger {
  if (logTo) return createLogger(config.logLevel, { destination: { write: logTo } });
  if (process.env.TEST_LOG_LEVEL) return createLogger(config.logLevel);
  const write = (line: string) => void (line.includes(`"msg":"${LEFT_BEHIND}`) && process.stderr.write(line));
  return createLogger(config.logLevel, { destination: { write } });
}

/**
 * The real service on an ephemeral port against its own fresh database, as `npm start` runs
 * it. `env` overrides settings (e.g. OIDC_CLIENTS_FILE).
 */
export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-test-'));
  const settings = {
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    SERVER_SECRET,
    DEV_CLIENT_SECRET,
    DATABASE_POOL_SIZE: '4',
    // Tests log in many times from one address; the ones about the password budget set their own.
    PASSWORD_CHECKS_PER_SECOND: '10000',
    // Hashing at OWASP's cost would take about 50 ms of CPU per sign-up and login (docs/security.md).
    PASSWORD_HASH_MEMORY_KIB: '1024',
    PASSWORD_HASH_PASSES: '1',
    ...env,
  };
  let config = loadConfig(settings);
  let service = await startService(config, testLogger(config, options));
  const app: TestApp = {
    url: service.url,
    config,
    service,
    database,
    devClientSecret: DEV_CLIENT_SECRET,
    serverSecret: SERVER_SECRET,
    async restart() {
      await service.close();
      // Same public URL (and so the same issuers) as before, as a real restart would have.
      config = loadConfig({ ...settings, PUBLIC_URL: app.url, PORT: String(new URL(app.url).port) });
      service = await startService(config, testLogger(config, options));
      Object.assign(app, { service, config });
    },
    async stop() {
      await service.close();
      await database.release();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return app;
}
