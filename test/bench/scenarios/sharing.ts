import pg from 'pg';
import { load, type Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { serverLogin, signUpUser } from './seed';

/** Inserts `count` accounts sharing `view` with `granteeId`, straight into the database. */
async function seedSharers(databaseUrl: string, granteeId: string, count: number, prefix: string): Promise<string[]> {
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
       select id, $1, array['view'], now(), now() from unnest($2::text[]) as id`,
      [granteeId, rows.map((row) => row.id)],
    );
    return rows.map((row) => row.id);
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
      'query ($ids: [ID!]!) { users(ids: $ids) { userid username sharedWith { userid permissions } sharedBy { userid permissions } } }',
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
  return [groups, users];
}
