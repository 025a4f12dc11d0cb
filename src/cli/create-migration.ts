import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config';
import { createLogger } from '../infra/logger';
import { entities } from '../entities';
import { openDatabase, migrate } from '../infra/database/orm';
import { ensureDatabase, resolvePostgres, withDatabase } from '../infra/database/postgres-server';
import pg from 'pg';

/**
 * `npm run migration:create -- <name>`: applies the committed migrations to a scratch database,
 * diffs it against the entities and writes the difference as a new migration in migrations/,
 * registered in migrations/index.ts. Review the generated SQL before committing it.
 */
async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) throw new Error('usage: npm run migration:create -- <kebab-case-name>');
  const config = loadConfig();
  const logger = createLogger('warn');
  const server = await resolvePostgres({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    port: config.embeddedPostgresPort,
    logger,
  });
  const scratch = `islet_migration_${process.pid}`;
  const adminUrl = withDatabase(server.url, 'postgres');
  await ensureDatabase(adminUrl, scratch);
  const orm = await openDatabase(withDatabase(server.url, scratch), entities);
  try {
    await migrate(orm);
    const folder = path.resolve('migrations');
    const result = await orm.migrator.create(folder, false, false, name.replace(/-/g, '_'));
    if (!result.fileName) {
      console.log('entities and migrations already agree: nothing to generate');
      return;
    }
    const className = path.basename(result.fileName, '.ts');
    const indexFile = path.join(folder, 'index.ts');
    const index = fs.readFileSync(indexFile, 'utf8');
    const withImport = `import { ${className} } from './${className}';\n${index}`;
    const entry = `  { name: '${className}', class: ${className} },\n];`;
    const updated = withImport.includes('= [];')
      ? withImport.replace('= [];', `= [\n${entry}`)
      : withImport.replace(/\n\];\s*$/, `\n${entry}\n`);
    fs.writeFileSync(indexFile, updated);
    console.log(`wrote migrations/${result.fileName}\n${result.diff.up.join('\n')}`);
  } finally {
    await orm.close();
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists "${scratch}"`);
    await admin.end();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
