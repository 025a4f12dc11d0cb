import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withDatabase } from '../../src/infra/database/postgres-server';
import { adminQuery, quoteIdent } from './postgres';

export interface TestDatabase {
  url: string;
  /** Runs SQL in this database on a connection of its own. */
  query(sql: string, values?: unknown[]): Promise<Record<string, any>[]>;
  /** Takes the database away from the app (refusing and cutting its connections) or gives it back. */
  setAvailable(available: boolean): Promise<void>;
  /**
   * Done with it: its connections are cut and refused. The database itself is dropped by
   * test/support/global-teardown.ts, because DROP DATABASE forces an immediate checkpoint that
   * waits for every buffer the other test files dirtied; mid-run that stalled a file's afterAll
   * beyond its timeout on a busy machine.
   */
  release(): Promise<void>;
}

/**
 * A fresh database for one test file, cloned from the migrated template, or with `empty` a
 * database with no tables at all (for tests of migrating itself).
 */
export async function createTestDatabase({ empty = false } = {}): Promise<TestDatabase> {
  const { ISLET_TEST_ADMIN_URL: adminUrl, ISLET_TEST_TEMPLATE: template } = process.env;
  if (!adminUrl || !template) throw new Error('test/support/global-setup.ts did not run');
  const admin = (sql: string) => adminQuery(adminUrl, sql);
  const name = `${template.replace('islet_tpl_', 'islet_t_')}_${randomBytes(4).toString('hex')}`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await admin(`create database ${quoteIdent(name)} template ${quoteIdent(empty ? 'template0' : template)}`);
      break;
    } catch (error) {
      // Another file cloning the template at the same moment holds it briefly.
      const busy = /is being accessed by other users/.test(String(error));
      if (!busy || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
  const url = withDatabase(adminUrl, name);
  const setAvailable = async (available: boolean) => {
    await admin(`alter database ${quoteIdent(name)} allow_connections ${available}`);
    if (!available)
      await admin(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
      );
  };
  return {
    url,
    query: async (sql, values = []) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, values)).rows;
      } finally {
        await client.end();
      }
    },
    setAvailable,
    release: () => setAvailable(false),
  };
}
