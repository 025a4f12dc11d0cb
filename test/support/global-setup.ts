import { loadRealmKeys } from '../../src/auth/oidc/keys';
import { REALMS } from '../../src/config';
import { entities } from '../../src/entities';
import { migrate, openDatabase } from '../../src/infra/database/orm';
import { withDatabase } from '../../src/infra/database/postgres-server';
import { adminQuery, quoteIdent, testPostgresAdminUrl } from './postgres';
import { ensurePlayground } from '../../src/playground/build';
import { startSharedS3Server } from './s3-server';

/**
 * Once per run: pick the PostgreSQL server and build a migrated template database, with the
 * realms' keys; every test file then clones it (test/support/database.ts), which is much faster
 * than migrating each.
 * Meanwhile, start the shared Swift S3 server (test/support/s3-server.ts; each file uses its
 * own bucket in it), and bundle the GraphQL playground unless the bundle in dist/ is current
 * (`npm test` on a fresh clone serves it as `npm start` does).
 */
export default async function globalSetup(): Promise<void> {
  const [postgres, s3, playground] = await Promise.allSettled([
    testPostgresAdminUrl(),
    startSharedS3Server(),
    ensurePlayground(),
  ]);
  if (postgres.status === 'rejected') throw postgres.reason;
  if (s3.status === 'rejected') throw s3.reason;
  if (playground.status === 'rejected') throw playground.reason;
  const { adminUrl, embedded } = postgres.value;
  const template = `islet_tpl_${process.pid}`;
  await adminQuery(adminUrl, `drop database if exists ${quoteIdent(template)}`);
  await adminQuery(adminUrl, `create database ${quoteIdent(template)}`);
  const orm = await openDatabase(withDatabase(adminUrl, template), entities, 2);
  try {
    await migrate(orm);
    // Every realm's signing key, made once here rather than at the first start in each file's
    // clone (eight RSA keys, about a second of CPU per file on a busy machine). Creating keys on
    // first use stays covered by test/e2e/concurrent-start.test.ts, which starts on an empty database.
    for (const realm of REALMS) await loadRealmKeys(orm, realm);
  } finally {
    await orm.close();
  }
  process.env.ISLET_TEST_ADMIN_URL = adminUrl;
  process.env.ISLET_TEST_TEMPLATE = template;
  process.env.ISLET_TEST_EMBEDDED = embedded ? '1' : '';
}
