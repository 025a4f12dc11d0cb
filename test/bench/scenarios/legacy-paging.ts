import pg from 'pg';
import { load, type Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { signUpUser } from './seed';

/** An account at the default blob quota (BLOB_QUOTA), the longest list one account can have. */
const BLOBS = 10_000;

/** `count` empty (`created`) blobs of `userId`, in one INSERT: what issue 27 made by POST in 25 s. */
async function seedBlobs(databaseUrl: string, userId: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into blobs (id, user_id, media_type, status, revision, created_time)
       select md5($1 || n::text), $1, 'text/plain', 'created', 0, now() - n * interval '1 second'
       from generate_series(1, $2::int) as n`,
      [userId, count],
    );
  } finally {
    await client.end();
  }
}

/**
 * Issue 27, item 8: `GET /v1/users/{id}/blobs?page=1000&size=1000` ran 125 statements and took
 * 1.15 s. A deep page of a list at the quota, beside the first page: the ratio is the cost of depth.
 */
export async function legacyPagingScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const owner = await signUpUser(env, 'pager');
  await seedBlobs(env.databaseUrl, owner.userid, BLOBS);
  const headers = { 'x-tidepool-session-token': owner.token };
  const pageUrl = (page: number) =>
    `${env.app.url}/v1/users/${owner.userid}/blobs?status=created&page=${page}&size=100`;
  const rows: Measurement[] = [];
  for (const [page, floor] of [
    [0, undefined],
    [BLOBS / 100 - 1, 'REST GET blobs page 0 (size 100)'],
  ] as const) {
    const row = await load(`REST GET blobs page ${page} (size 100)`, { url: pageUrl(page), headers }, floor);
    const response = await fetch(pageUrl(page), { headers });
    if (!response.ok) throw new Error(`${response.url} answered ${response.status}`);
    row.notes = `${response.headers.get('x-sql-statements')} SQL statements/request, ${BLOBS} blobs`;
    rows.push(row);
  }
  return rows;
}
