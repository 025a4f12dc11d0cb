import { generateKeyPairSync } from 'node:crypto';
import { importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import pg from 'pg';
import type { TestApp } from './app';

/** The realm's current signing key, read from the database as an operator could. */
export async function realmSigningKey(app: TestApp, realm: string): Promise<JWK> {
  const client = new pg.Client({ connectionString: app.database.url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select material from realm_keys where realm = $1 and use = 'sig' and retired_at is null order by created_at desc limit 1`,
      [realm],
    );
    return rows[0].material as JWK;
  } finally {
    await client.end();
  }
}

export function strangerKey(kid: string): JWK {
  return { ...(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as JWK), kid };
}

/** Signs an access-token-shaped JWT, for tokens the service must refuse (forged, expired, ...). */
export async function signAccessToken(key: JWK, claims: JWTPayload): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ aud: 'islet-api', iat: now, exp: now + 300, client_id: 'islet-dev', ...claims })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: key.kid })
    .sign(await importJWK(key, 'RS256'));
}

/** An access token of `userId` signed by the dev1 realm's own key that expired ten minutes ago. */
export async function expiredAccessToken(app: TestApp, userId: string): Promise<string> {
  const key = await realmSigningKey(app, 'dev1');
  const past = Math.floor(Date.now() / 1000) - 600;
  return signAccessToken(key, { iss: `${app.url}/realms/dev1`, sub: userId, sid: 'gone', iat: past - 300, exp: past });
}
