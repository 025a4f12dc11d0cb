import pg from 'pg';
import { load, type Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { serverLogin, signUpUser } from './seed';

/** Inserts `count` accounts sharing `permissions` with `granteeId`, straight into the database. */
async function seedSharers(
  databaseUrl: string,
  granteeId: string,
  count: number,
  prefix: string,
  permissions: string[] = ['view'],
): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `insert into users (id, username, emails, roles, email_verified, created_time)
       select substr(md5($2 || n::text), 1, 10), $2 || n || '@example.org', array[$2 || n || '@example.org'], '{}', false, now()
       from generate_series(1, $1::int) as n
       returning id`,
      [count, prefix],
    );
    await client.query(
      `insert into permission_grants (sharer_id, grantee_id, permissions, created_time, modified_time)
       select id, $1, $3::text[], now(), now() from unnest($2::text[]) as id`,
      [granteeId, rows.map((row) => row.id), permissions],
    );
    return rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}

/** Inserts `perUser` available blob records for each user (metadata only: the bench never downloads them). */
async function seedBlobs(databaseUrl: string, userIds: string[], perUser: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into blobs (id, user_id, media_type, status, digest_md5, size, object_key, revision, created_time, modified_time)
       select md5(u || n::text), u, 'application/octet-stream', 'available', '1B2M2Y8AsgTpgAmY7PhCfg==', 0,
              'bench/' || md5(u || n::text), 1, now() - n * interval '1 second', now()
       from unnest($1::text[]) as u, generate_series(1, $2::int) as n`,
      [userIds, perUser],
    );
  } finally {
    await client.end();
  }
}

async function statementsPerRequest(url: string, init: RequestInit): Promise<number> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return Number(response.headers.get('x-sql-statements'));
}

/** Issue 4: a large permission group over REST, and 100 users with their grants over GraphQL. */
export async function sharingScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const viewer = await signUpUser(env, 'viewer');
  const sharers = await seedSharers(env.databaseUrl, viewer.userid, 1000, 'sharer');
  const groupsUrl = `${env.app.url}/access/groups/${viewer.userid}`;
  const headers = { 'x-tidepool-session-token': viewer.token };
  const groups = await load('REST GET /access/groups (1,000 sharers)', { url: groupsUrl, headers });
  groups.notes = `${await statementsPerRequest(groupsUrl, { headers })} SQL statements/request`;

  const server = await serverLogin(env);
  const body = JSON.stringify({
    query:
      'query ($ids: [ID!]!) { users(ids: $ids) { userId username sharedWith(first: 10) { nodes { userId permissions } } sharedBy(first: 10) { nodes { userId permissions } } } }',
    variables: { ids: sharers.slice(0, 100) },
  });
  const graphqlHeaders = { 'x-tidepool-session-token': server, 'content-type': 'application/json' };
  const url = `${env.app.url}/graphql`;
  const users = await load('GraphQL 100 users with permissions', {
    url,
    method: 'POST',
    headers: graphqlHeaders,
    body,
  });
  users.notes = `${await statementsPerRequest(url, { method: 'POST', headers: graphqlHeaders, body })} SQL statements/request`;

  // Issue 12: the dashboard's nested query, a clinician's patients with a page of blobs each.
  const clinician = await signUpUser(env, 'clinician');
  const patients = await seedSharers(env.databaseUrl, clinician.userid, 60, 'patient', ['custodian', 'view']);
  await seedBlobs(env.databaseUrl, patients, 15);
  const dashboardHeaders = { 'x-tidepool-session-token': clinician.token, 'content-type': 'application/json' };
  const dashboard = async (first: number) => {
    const query = `{ me { sharedBy(first: ${first}) { totalCount nodes { userId user { userId username blobs(first: 10) { totalCount nodes { id } } } } } } }`;
    const init = { method: 'POST' as const, headers: dashboardHeaders, body: JSON.stringify({ query }) };
    const answer = (await (await fetch(url, init)).json()) as { errors?: unknown; data?: any };
    const nodes = answer.data?.me?.sharedBy?.nodes ?? [];
    if (answer.errors || nodes.length !== first || nodes[0].user?.blobs?.totalCount !== 15)
      throw new Error(`the dashboard query answered ${JSON.stringify(answer).slice(0, 500)}`);
    const row = await load(`GraphQL dashboard: sharedBy(first: ${first}) → user → blobs(first: 10)`, { url, ...init });
    row.notes = `${await statementsPerRequest(url, init)} SQL statements/request`;
    return row;
  };
  return [groups, users, await dashboard(50), await dashboard(5)];
}
