import { randomBytes } from 'node:crypto';
import { withDatabase } from '../../src/infra/database/postgres-server';
import { adminQuery, quoteIdent } from './postgres';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database for one test file, cloned from the migrated template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.ISLET_TEST_ADMIN_URL;
  const template = process.env.ISLET_TEST_TEMPLATE;
  if (!adminUrl || !template) throw new Error('test/support/global-setup.ts did not run');
  const name = `${template.replace('islet_tpl_', 'islet_t_')}_${randomBytes(4).toString('hex')}`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      await adminQuery(adminUrl, `create database ${quoteIdent(name)} template ${quoteIdent(template)}`);
      break;
    } catch (error) {
      // Another file cloning the template at the same moment holds it briefly.
      const busy = /is being accessed by other users/.test(String(error));
      if (!busy || attempt >= 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
  return {
    url: withDatabase(adminUrl, name),
    drop: () => adminQuery(adminUrl, `drop database if exists ${quoteIdent(name)} with (force)`),
  };
}
