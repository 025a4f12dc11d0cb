import { ConfigError, loadConfig } from '../config';
import { createLogger } from '../infra/logger';
import { entities } from '../entities';
import { migrate, openDatabase } from '../infra/database/orm';
import { resolvePostgres } from '../infra/database/postgres-server';

/** `npm run migrate`: applies pending migrations to the configured (or default) database. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  const server = await resolvePostgres({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    port: config.embeddedPostgresPort,
    logger,
  });
  const orm = await openDatabase(server.url, entities, 2);
  try {
    // The lock needs a session of its own: not through a transaction-mode pooler.
    const applied = await migrate(orm, config.databaseDirectUrl ?? server.url);
    process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n');
  } finally {
    await orm.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : ((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
