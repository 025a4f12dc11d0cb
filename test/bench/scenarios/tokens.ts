import { load, type Measurement } from '../harness';
import { CLIENT_SECRET, type BenchEnvironment } from '../setup';
import { signUpUser } from './seed';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/**
 * Issue 3: token-endpoint throughput. The floor signs the same JWT with jose and nothing else.
 * Password grants spend most of their time in argon2id, by design.
 */
export async function tokenScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const user = await signUpUser(env, 'grant');
  const tokenUrl = `${env.app.url}/realms/dev1/protocol/openid-connect/token`;
  const floor = await load('floor: jose signs the JWT', { url: `${env.floor.url}/floor/sign`, method: 'POST' });
  const clientCredentials = await load(
    'client_credentials grant',
    {
      url: tokenUrl,
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'bench-backend',
        client_secret: CLIENT_SECRET,
      }).toString(),
    },
    floor.name,
  );
  const password = await load(
    'password grant (argon2id)',
    {
      url: tokenUrl,
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: 'bench-partner',
        client_secret: CLIENT_SECRET,
        username: user.email,
        password: user.password,
      }).toString(),
    },
    floor.name,
  );
  clientCredentials.notes = `Keycloak sizing guide: 120/s per vCPU`;
  password.notes = `Keycloak sizing guide: 15/s per vCPU`;
  return [floor, clientCredentials, password];
}
