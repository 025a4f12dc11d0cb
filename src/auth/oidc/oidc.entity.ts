import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Everything oidc-provider persists (grants, sessions, refresh tokens, codes, interactions,
 * clients), one row per artefact, keyed by realm so realms never see each other's records.
 */
export const OidcRecordSchema = defineEntity({
  name: 'OidcRecord',
  tableName: 'oidc_records',
  properties: {
    realm: p.string().primary().length(32),
    model: p.string().primary().length(48),
    id: p.string().primary().length(255),
    payload: p.json<Record<string, unknown>>(),
    grantId: p.string().length(255).nullable(),
    accountId: p.string().length(64).nullable(),
    uid: p.string().length(255).nullable(),
    expiresAt: p.datetime().nullable().index(),
    consumedAt: p.datetime().nullable(),
  },
  indexes: [{ properties: ['realm', 'grantId'] }, { properties: ['realm', 'uid'] }, { properties: ['accountId'] }],
});

export type OidcRecord = InferEntity<typeof OidcRecordSchema>;

/**
 * Private keys per realm. `use` is `sig` for token signing keys (the newest active key signs,
 * retired ones still verify until they are dropped) and `cookie` for cookie-signing secrets.
 */
export const RealmKeySchema = defineEntity({
  name: 'RealmKey',
  tableName: 'realm_keys',
  properties: {
    realm: p.string().primary().length(32),
    kid: p.string().primary().length(64),
    use: p.string().length(16),
    material: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    retiredAt: p.datetime().nullable(),
  },
});

export type RealmKey = InferEntity<typeof RealmKeySchema>;

/** Sessions ended before their access tokens expire (see SessionRevocations). */
export const RevokedSessionSchema = defineEntity({
  name: 'RevokedSession',
  tableName: 'revoked_sessions',
  properties: {
    realm: p.string().primary().length(32),
    grantId: p.string().primary().length(255),
    expiresAt: p.datetime().index(),
  },
});

/** Failed logins per account or per source address, for temporary lockouts (LoginGuard). */
export const LoginFailureSchema = defineEntity({
  name: 'LoginFailure',
  tableName: 'login_failures',
  properties: {
    key: p.string().primary().length(320),
    failures: p.integer(),
    lastFailure: p.datetime(),
    lockedUntil: p.datetime().nullable(),
  },
});
