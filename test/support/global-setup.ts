import { migrate, openDatabase } from '../../src/infra/database/orm';
import { withDatabase } from '../../src/infra/database/postgres-server';
import { adminQuery, quoteIdent, testPostgresAdminUrl } from './postgres';

/**
 * Once per run: pick the PostgreSQL server and build a migrated template database; every test
 * file then clones it (test/support/database.ts), which is much faster than migrating each.
 */
export default async function globalSetup(): Promise<void> {
  const { adminUrl, embedded } = await testPostgresAdminUrl();
  const template = `islet_tpl_${process.pid}`;
  await adminQuery(adminUrl, `drop database if exists ${quoteIdent(template)}`);
  await adminQuery(adminUrl, `create database ${quoteIdent(template)}`);
  const orm = await openDatabase(withDatabase(adminUrl, template), 2);
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
  process.env.ISLET_TEST_ADMIN_URL = adminUrl;
  process.env.ISLET_TEST_TEMPLATE = template;
  process.env.ISLET_TEST_EMBEDDED = embedded ? '1' : '';
}
