import pg from 'pg';
import { adminQuery, quoteIdent } from './postgres';
import { stopSharedS3Server } from './s3-server';

/** Stops the shared S3 server; drops the template and any database a crashed test file left behind. */
export default async function globalTeardown(): Promise<void> {
  await stopSharedS3Server();
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
