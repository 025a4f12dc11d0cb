import { load, type Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { signUpUser } from './seed';

/** Issue 2: the cheapest authenticated read through each transport, against the floor. */
export async function accountScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const user = await signUpUser(env, 'bench');
  const headers = { 'x-tidepool-session-token': user.token };
  const floor = await load('floor: jose verify + 1 pg query', { url: `${env.floor.url}/floor/user`, headers });
  const rest = await load('REST GET /auth/user', { url: `${env.app.url}/auth/user`, headers }, floor.name);
  const graphql = await load(
    'GraphQL { me { userid } }',
    {
      url: `${env.app.url}/graphql`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { userid } }' }),
    },
    floor.name,
  );
  return [floor, rest, graphql];
}
