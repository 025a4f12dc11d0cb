import { REALMS, ConfigError, loadConfig, type Realm } from '../config';
import { createLogger } from '../infra/logger';
import { entities } from '../entities';
import { openDatabase } from '../infra/database/orm';
import { resolvePostgres } from '../infra/database/postgres-server';
import { pruneRetiredKeys, rotateSigningKey } from '../auth/oidc/keys';

/** Retired keys stay published this long: far beyond any token they can have signed. */
const KEEP_RETIRED_SECONDS = 24 * 3600;

/**
 * `npm run keys:rotate -- [realm ...]` (all realms by default): a new signing key per realm.
 * Running instances switch to it at once; tokens signed by the old key stay valid.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const realms = process.argv.slice(2);
  const unknown = realms.filter((realm) => !(REALMS as readonly string[]).includes(realm));
  if (unknown.length) throw new ConfigError(`unknown realm ${unknown.join(', ')}; realms are ${REALMS.join(', ')}`);
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  const server = await resolvePostgres({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    port: config.embeddedPostgresPort,
    logger,
  });
  const orm = await openDatabase(server.url, entities, 2);
  try {
    for (const realm of (realms.length ? realms : REALMS) as Realm[]) {
      const kid = await rotateSigningKey(orm, realm);
      const pruned = await pruneRetiredKeys(orm, realm, KEEP_RETIRED_SECONDS);
      process.stdout.write(`${realm}: now signing with ${kid}${pruned ? `, dropped ${pruned} old key(s)` : ''}\n`);
    }
  } finally {
    await orm.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : ((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
