import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createLogger } from '../../src/infra/logger';
import { canConnect, startEmbeddedPostgres, withDatabase } from '../../src/infra/database/postgres-server';
import { freePort } from './ports';

/**
 * The PostgreSQL server the tests use, chosen as `npm start` chooses: DATABASE_URL (its server),
 * else 127.0.0.1:5432, else an embedded PostgreSQL in the system temp folder.
 */
export async function testPostgresAdminUrl(): Promise<{ adminUrl: string; embedded: boolean }> {
  if (process.env.DATABASE_URL)
    return { adminUrl: withDatabase(process.env.DATABASE_URL, 'postgres'), embedded: false };
  const local = 'postgres://postgres@127.0.0.1:5432/postgres';
  if (await canConnect(local)) return { adminUrl: local, embedded: false };
  const adminUrl = await startEmbeddedPostgres({
    dataDir: path.join(os.tmpdir(), 'islet-test-postgres'),
    port: await freePort(),
    logger: createLogger('warn'),
  });
  return { adminUrl, embedded: true };
}

export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
