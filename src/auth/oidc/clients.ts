import fs from 'node:fs';
import type { Orm } from '../../infra/database/orm';
import { sqlOutsideTransactions } from '../../infra/database/sql-outside-transactions';
import { arrayLiteral } from '../../kernel/sql';
import { REALMS, type Config, type Realm } from '../../config';
import { generateClientSecret, hashClientSecret, verifyClientSecret } from './client-secrets';
import { SUPPORTED_SCOPES } from './scopes';

/** Client metadata Islet adds to OIDC's: roles, trust and redirect conveniences. */
export const CUSTOM_CLIENT_PROPERTIES = [
  'realm_roles',
  'trusted_partner',
  'first_party',
  'loopback_redirects',
] as const;

export const BACKEND_SERVICE_ROLE = 'backend_service';
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** Internal clients: legacy `/auth/login` sessions and `/auth/serverlogin` server tokens. */
export const LEGACY_CLIENT_ID = 'islet-legacy';
export const SERVER_CLIENT_ID = 'islet-server';
export const DEV_CLIENT_ID = 'islet-dev';
/** The GraphQL playground's sign-in: a public client (PKCE) in every realm while GRAPHQL_PLAYGROUND is on. */
export const PLAYGROUND_CLIENT_ID = 'islet-playground';

/** The playground's page, `GET /graphql` on PUBLIC_URL: where its sign-in comes back to. */
export const playgroundRedirectUri = (baseUrl: string) => `${baseUrl}/graphql`;

/** A client as configured (snake_case, as in OIDC client metadata). */
export interface ClientDefinition {
  client_id: string;
  /** Omitted for public clients (which must use PKCE). */
  client_secret?: string;
  grant_types: string[];
  redirect_uris?: string[];
  post_logout_redirect_uris?: string[];
  /** `backend_service` makes its client-credentials tokens server tokens. */
  realm_roles?: string[];
  /** May use the password and token-exchange grants. */
  trusted_partner?: boolean;
  /** Skips the consent step: a client of this deployment. */
  first_party?: boolean;
  /** Accepts any port and path on http://127.0.0.1 or http://localhost (RFC 8252 §7.3). */
  loopback_redirects?: boolean;
  /**
   * Internal (not a file setting): a secret already stored for this client wins over this one,
   * so instances sharing a database never overwrite each other's (the development client).
   */
  keep_stored_secret?: boolean;
}

type ClientLike = { [key: string]: unknown };

export function realmRolesOf(client: ClientLike): string[] {
  return Array.isArray(client.realm_roles) ? (client.realm_roles as string[]) : [];
}

export function isTrustedPartner(client: ClientLike): boolean {
  return client.trusted_partner === true;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function allowsLoopbackRedirect(client: ClientLike, uri: string): boolean {
  if (client.loopback_redirects !== true) return false;
  const parsed = URL.parse(uri);
  return parsed !== null && parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname) && parsed.hash === '';
}

const KNOWN_KEYS = new Set([
  'client_id',
  'client_secret',
  'grant_types',
  'redirect_uris',
  'post_logout_redirect_uris',
  ...CUSTOM_CLIENT_PROPERTIES,
]);

function checkDefinition(definition: ClientDefinition, where: string): ClientDefinition {
  const unknown = Object.keys(definition).filter((key) => !KNOWN_KEYS.has(key));
  if (unknown.length) throw new Error(`${where}: unknown client settings ${unknown.join(', ')}`);
  if (typeof definition.client_id !== 'string' || !/^[\w.:-]{1,128}$/.test(definition.client_id)) {
    throw new Error(`${where}: client_id must be 1-128 letters, digits or . _ : -`);
  }
  if (definition.client_secret !== undefined && String(definition.client_secret).length < 16) {
    throw new Error(`${where}: client_secret of ${definition.client_id} must be at least 16 characters`);
  }
  if (!Array.isArray(definition.grant_types) || definition.grant_types.length === 0) {
    throw new Error(`${where}: ${definition.client_id} needs a non-empty grant_types list`);
  }
  return definition;
}

/**
 * Reads OIDC_CLIENTS_FILE: `{ "<realm>" | "*": [ClientDefinition, ...] }`, where "*" applies to
 * every realm. Mistakes stop the start-up with a message naming the client.
 */
export function readClientsFile(file: string): Map<Realm, ClientDefinition[]> {
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, ClientDefinition[]>;
  const byRealm = new Map<Realm, ClientDefinition[]>(REALMS.map((realm) => [realm, []]));
  for (const [key, definitions] of Object.entries(parsed)) {
    if (key !== '*' && !(REALMS as readonly string[]).includes(key)) throw new Error(`${file}: unknown realm "${key}"`);
    if (!Array.isArray(definitions)) throw new Error(`${file}: "${key}" must list clients`);
    for (const definition of definitions) {
      checkDefinition(definition, file);
      for (const realm of key === '*' ? REALMS : [key as Realm]) byRealm.get(realm)!.push(definition);
    }
  }
  return byRealm;
}

export function developmentClient(secret: string): ClientDefinition {
  return {
    client_id: DEV_CLIENT_ID,
    client_secret: secret,
    grant_types: ['authorization_code', 'refresh_token', 'password', 'client_credentials', TOKEN_EXCHANGE_GRANT],
    redirect_uris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
    post_logout_redirect_uris: ['http://127.0.0.1/', 'http://localhost/'],
    trusted_partner: true,
    first_party: true,
    loopback_redirects: true,
    keep_stored_secret: true,
  };
}

/**
 * The playground's client: public (a page keeps no secret), so oidc-provider requires PKCE of
 * it; first party, so no consent step; only its own page as redirect.
 */
export function playgroundClient(baseUrl: string): ClientDefinition {
  return {
    client_id: PLAYGROUND_CLIENT_ID,
    grant_types: ['authorization_code', 'refresh_token'],
    redirect_uris: [playgroundRedirectUri(baseUrl)],
    post_logout_redirect_uris: [playgroundRedirectUri(baseUrl)],
    first_party: true,
  };
}

/** The clients the service itself uses; their secrets never leave the process. */
export function internalClients(): ClientDefinition[] {
  return [
    {
      client_id: LEGACY_CLIENT_ID,
      client_secret: generateClientSecret(),
      grant_types: ['refresh_token'],
      first_party: true,
    },
    {
      client_id: SERVER_CLIENT_ID,
      client_secret: generateClientSecret(),
      grant_types: ['client_credentials'],
      realm_roles: [BACKEND_SERVICE_ROLE],
    },
  ];
}

/** OIDC client metadata as oidc-provider reads it from the adapter, with the secret hashed. */
function toMetadata(definition: ClientDefinition): Record<string, unknown> {
  const { client_secret: secret, redirect_uris: redirects = [], keep_stored_secret: _keep, ...rest } = definition;
  const usesBrowser = definition.grant_types.includes('authorization_code');
  return {
    ...rest,
    redirect_uris: redirects,
    response_types: usesBrowser ? ['code'] : [],
    token_endpoint_auth_method: secret === undefined ? 'none' : 'client_secret_basic',
    scope: SUPPORTED_SCOPES.join(' '),
    ...(secret === undefined ? {} : { client_secret: hashClientSecret(secret) }),
  };
}

/** The rows of `definitions` as one JSON parameter, read back with jsonb_to_recordset. */
const clientRows = (definitions: ClientDefinition[]) =>
  JSON.stringify(definitions.map((definition) => ({ id: definition.client_id, payload: toMetadata(definition) })));
const CLIENT_ROWS = `select ?, 'Client', row.id, row.payload from jsonb_to_recordset(?::jsonb) as row(id text, payload jsonb)`;

/**
 * Stores the realm's clients (replacing earlier versions) where oidc-provider looks them up, in
 * at most two statements (a start registers every realm's, and each statement outside a
 * transaction is a commit). A `keep_stored_secret` client keeps the secret already stored, in
 * one statement, so instances starting together agree on the first one; the answer lists those
 * whose stored secret is not the definition's.
 */
export async function registerClients(orm: Orm, realm: Realm, definitions: ClientDefinition[]): Promise<string[]> {
  // Outside any transaction, as oidc-provider's own storage (postgres-adapter.ts).
  const sql = sqlOutsideTransactions(orm);
  const keepsStored = (definition: ClientDefinition) =>
    definition.keep_stored_secret === true && definition.client_secret !== undefined;
  // One row per client, the last definition winning, as when each was stored in turn.
  const latest = [...new Map(definitions.map((definition) => [definition.client_id, definition])).values()];
  const replaced = latest.filter((definition) => !keepsStored(definition));
  const kept = latest.filter(keepsStored);
  if (replaced.length) {
    await sql.run(
      `insert into oidc_records (realm, model, id, payload) ${CLIENT_ROWS}
       on conflict (realm, model, id) do update set payload = excluded.payload`,
      [realm, clientRows(replaced)],
    );
  }
  if (!kept.length) return [];
  const stored = await sql.rows<{ id: string; secret: string | null }>(
    `insert into oidc_records (realm, model, id, payload) ${CLIENT_ROWS}
     on conflict (realm, model, id) do update set payload = case
       when oidc_records.payload->>'client_secret' is null then excluded.payload
       else jsonb_set(excluded.payload, '{client_secret}', oidc_records.payload->'client_secret') end
     returning id, payload->>'client_secret' as secret`,
    [realm, clientRows(kept)],
  );
  const secrets = new Map(stored.map((row) => [row.id, row.secret]));
  return kept
    .filter((definition) => {
      const secret = secrets.get(definition.client_id);
      return !secret || !verifyClientSecret(definition.client_secret!, secret);
    })
    .map((definition) => definition.client_id);
}

/**
 * Removes the realm's stored clients that this start does not define, naming them: the clients
 * of a deployment are the ones its settings define now, so a client taken out of
 * OIDC_CLIENTS_FILE, or the development client once the database serves production mode, stops
 * working instead of lingering in the database from an earlier start.
 */
export async function removeUndefinedClients(
  orm: Orm,
  realm: Realm,
  definitions: ClientDefinition[],
): Promise<string[]> {
  const rows = await sqlOutsideTransactions(orm).rows<{ id: string }>(
    `delete from oidc_records where realm = ? and model = 'Client' and not (id = any(?::text[])) returning id`,
    [realm, arrayLiteral(definitions.map((definition) => definition.client_id))],
  );
  return rows.map((row) => row.id);
}

/**
 * Every realm's clients: the internal ones, the development client, the playground's (while it
 * is on) and OIDC_CLIENTS_FILE's.
 */
export function clientsFor(
  config: Config,
  devClientSecret: string | undefined,
  baseUrl: string,
): Map<Realm, ClientDefinition[]> {
  const configured = config.oidcClientsFile
    ? readClientsFile(config.oidcClientsFile)
    : new Map<Realm, ClientDefinition[]>();
  const development = devClientSecret && config.nodeEnv !== 'production' ? [developmentClient(devClientSecret)] : [];
  const playground = config.graphqlPlayground ? [playgroundClient(baseUrl)] : [];
  return new Map(
    REALMS.map((realm) => [
      realm,
      [...internalClients(), ...development, ...playground, ...(configured.get(realm) ?? [])],
    ]),
  );
}
