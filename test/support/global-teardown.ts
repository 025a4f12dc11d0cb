import pg from 'pg';
import { adminQuery, quoteIdent } from './postgres';

/** Drops the template and any database a crashed test file left behind. */
export default async function globalTeardown(): Promise<void> {
  const adminUrl = process.env.ISLET_TEST_ADMIN_URL;
  const template = process.env.ISLET_TEST_TEMPLATE;
  if (!adminUrl || !template) return;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [
    `${template.replace('islet_tpl_', 'islet_t_')}_%`,
  ]);
  await client.end();
  for (const { datname } of [...rows, { datname: template }]) {
    await adminQuery(adminUrl, `drop database if exists ${quoteIdent(datname)} with (force)`);
  }
}
