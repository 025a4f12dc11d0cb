import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import type { Orm } from '../../infra/database/orm';
import { sqlOutsideTransactions } from '../../infra/database/sql-outside-transactions';
import { RealmKeySchema, type RealmKey } from './oidc.entity';

export const SIGNING_ALG = 'RS256';

export interface RealmKeyMaterial {
  /** Private JWKs, the signing key first, then retired keys still accepted for verification. */
  signing: JWK[];
  /** Secrets that sign the realm's cookies, newest first. */
  cookieKeys: string[];
}

const PUBLIC_MEMBERS = ['kty', 'kid', 'use', 'alg', 'n', 'e', 'crv', 'x', 'y'] as const;

export function publicJwk(key: JWK): JWK {
  return Object.fromEntries(
    PUBLIC_MEMBERS.filter((name) => key[name] !== undefined).map((name) => [name, key[name]]),
  ) as JWK;
}

function newSigningKey(): JWK {
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }) as JWK;
  return { ...jwk, kid: randomBytes(12).toString('base64url'), alg: SIGNING_ALG, use: 'sig' };
}

async function insertKey(
  orm: Orm,
  realm: string,
  use: 'sig' | 'cookie',
  kid: string,
  material: Record<string, unknown>,
) {
  const em = orm.em.fork();
  await em.upsert(
    RealmKeySchema,
    { realm, kid, use, material, createdAt: new Date(), retiredAt: null },
    { onConflictAction: 'ignore' },
  );
}

export const KEYS_ROTATED_CHANNEL = 'islet_keys_rotated';

/**
 * Generates a new signing key for the realm and retires the previous ones, which stay published
 * and keep verifying what they signed. Every instance is told to sign with the new key.
 */
export async function rotateSigningKey(orm: Orm, realm: string): Promise<string> {
  const key = newSigningKey();
  await orm.em.fork().nativeUpdate(RealmKeySchema, { realm, use: 'sig', retiredAt: null }, { retiredAt: new Date() });
  await insertKey(orm, realm, 'sig', key.kid!, key as Record<string, unknown>);
  // Outside any transaction, as the key's own writes above (forks): announced as soon as it is stored.
  await sqlOutsideTransactions(orm).rows('select pg_notify(?, ?)', [KEYS_ROTATED_CHANNEL, realm]);
  return key.kid!;
}

/** Drops retired signing keys older than `keepSeconds`: no token they signed can still be valid. */
export async function pruneRetiredKeys(orm: Orm, realm: string, keepSeconds: number): Promise<number> {
  return orm.em.fork().nativeDelete(RealmKeySchema, {
    realm,
    use: 'sig',
    retiredAt: { $lt: new Date(Date.now() - keepSeconds * 1000) },
  });
}

/** The realm's keys, created on first use and persisted so a restart keeps every token valid. */
export async function loadRealmKeys(orm: Orm, realm: string): Promise<RealmKeyMaterial> {
  const read = () => orm.em.fork().find(RealmKeySchema, { realm }, { orderBy: { createdAt: 'desc' } });
  let rows = await read();
  const missingSigningKey = !rows.some((row) => row.use === 'sig' && row.retiredAt === null);
  const missingCookieKey = !rows.some((row) => row.use === 'cookie');
  if (missingSigningKey) {
    const key = newSigningKey();
    await insertKey(orm, realm, 'sig', key.kid!, key as Record<string, unknown>);
  }
  if (missingCookieKey) {
    await insertKey(orm, realm, 'cookie', `cookie-${randomBytes(6).toString('hex')}`, {
      secret: randomBytes(32).toString('base64url'),
    });
  }
  // Read again only after inserting: another instance starting at once may have inserted too.
  if (missingSigningKey || missingCookieKey) rows = await read();
  const active = (row: RealmKey) => (row.retiredAt === null ? 0 : 1);
  const signing = rows
    .filter((row) => row.use === 'sig')
    .sort((a, b) => active(a) - active(b))
    .map((row) => row.material as JWK);
  const cookieKeys = rows.filter((row) => row.use === 'cookie').map((row) => String(row.material.secret));
  return { signing, cookieKeys };
}
