import { createObjectStore } from '../../src/infra/object-store';
import type { TestApp } from './app';

/** Every key in the app's object store: what a test checks to prove nothing was left behind. */
export async function storedKeys(app: TestApp, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of createObjectStore(app.config).list(prefix)) keys.push(key);
  return keys;
}

/** Rows of a table in the app's own database. */
export async function rowCount(app: TestApp, table: string): Promise<number> {
  const rows = await app.database.query(`select count(*)::int as count from ${table}`);
  return rows[0].count as number;
}
