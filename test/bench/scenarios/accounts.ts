import { load, type Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { signUpUser, type SeededUser } from './seed';

/** Sharers that grant `view` to `grantee` through the REST API, for a nested query with data. */
async function seedSharers(env: BenchEnvironment, grantee: SeededUser, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    const sharer = await signUpUser(env, `sharer${index}`);
    const response = await fetch(`${env.app.url}/access/${sharer.userid}/${grantee.userid}`, {
      method: 'POST',
      headers: { 'x-tidepool-session-token': sharer.token, 'content-type': 'application/json' },
      body: JSON.stringify({ view: {} }),
    });
    if (!response.ok) throw new Error(`sharing answered ${response.status}: ${await response.text()}`);
  }
}

/** Issue 2: the cheapest authenticated read through each transport, against the floor. */
export async function accountScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const user = await signUpUser(env, 'bench');
  const headers = { 'x-tidepool-session-token': user.token };
  // Issue 11: the request limits (cost analysis) must not slow down a nested query either.
  // Shared first: for ten seconds after its grants change, the instance that changed them reads
  // the grantee's from the table (received-grants.ts); the rows below measure the visits after.
  await seedSharers(env, user, 10);
  // CPU time per request of the floor's process and the service's: unlike the ratio of rates, it
  // barely moves when something else shares the machine.
  const floor = await load('floor: jose verify + 1 pg query', {
    url: `${env.floor.url}/floor/user`,
    headers,
    cpuOf: env.floor.process,
  });
  // The service remembers verified tokens; this floor does too, for a like-for-like comparison.
  const cachedFloor = await load('floor: cached jose verify + 1 pg query', {
    url: `${env.floor.url}/floor/user?cached=1`,
    headers,
  });
  const cpuOf = env.app.process;
  const rest = await load('REST GET /auth/user', { url: `${env.app.url}/auth/user`, headers, cpuOf }, floor.name);
  const graphql = await load(
    'GraphQL { me { userId } }',
    {
      url: `${env.app.url}/graphql`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { userId } }' }),
      cpuOf,
    },
    floor.name,
  );
  const nested = await load(
    'GraphQL { me { sharedBy { user } } } (10 sharers)',
    {
      url: `${env.app.url}/graphql`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ me { userId username sharedBy { nodes { userId permissions user { userId username } } } } }',
      }),
      cpuOf,
    },
    floor.name,
  );
  const againstCached = (row: Measurement): Measurement => ({
    ...row,
    notes: `${(row.requestsPerSecond / cachedFloor.requestsPerSecond).toFixed(2)} of the cached floor`,
  });
  return [floor, cachedFloor, againstCached(rest), againstCached(graphql), againstCached(nested)];
}
