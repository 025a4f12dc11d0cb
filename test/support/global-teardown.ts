import pg from 'pg';
import { adminQuery, quoteIdent } from './postgres';
import { stopSharedS3Server } from './s3-server';

/** Databases dropped at once (see below). */
const DROPPERS = 16;

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
  // Several at once: each DROP DATABASE waits for a checkpoint (PostgreSQL 15), and drops that
  // wait together share one. One at a time, a run's 230 databases took about 40 s.
  const queue = [...rows.map((row) => row.datname), template];
  const dropper = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift())
      await adminQuery(adminUrl, `drop database if exists ${quoteIdent(name)} with (force)`);
  };
  await Promise.all(Array.from({ length: DROPPERS }, dropper));
}
