import type { IncomingMessage, ServerResponse } from 'node:http';
import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import type Provider from 'oidc-provider';
import { ConfigError, REALMS, type Config, type Realm } from '../config';
import type { Orm } from '../infra/database/orm';
import type { Logger } from '../infra/logger';
import type { DatabaseEvents } from '../infra/database/events';
import type { AccountDirectory } from './accounts';
import type { LoginGuard } from './login-guard';
import type { SessionRevocations } from './session-revocations';
import { DEV_CLIENT_ID, registerClients, removeUndefinedClients, type ClientDefinition } from './oidc/clients';
import type { ResourceServerInfo } from './oidc/issue-tokens';
import { KEYS_ROTATED_CHANNEL, loadRealmKeys, publicJwk } from './oidc/keys';
import { registerPasswordGrant } from './oidc/password-grant';
import { apiResourceServer, createRealmProvider } from './oidc/provider';

/** One realm at run time: its issuer, its provider and the keys its tokens verify with. */
export interface RealmRuntime {
  realm: Realm;
  issuer: string;
  provider: Provider;
  resourceServer: ResourceServerInfo;
  verificationKeys: JWTVerifyGetKey;
  /** Key ids the verification set knows, to tell a rotated-in key from a forged one. */
  keyIds: Set<string>;
  /** Keys the login form's CSRF tokens (a realm cookie secret). */
  csrfSecret: string;
  /** The provider's own routes (node's request and response: express's extend them). */
  handle: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface RealmsOptions {
  config: Config;
  orm: Orm;
  baseUrl: string;
  accounts: AccountDirectory;
  logger: Logger;
  clients: Map<Realm, ClientDefinition[]>;
  revocations: SessionRevocations;
  events: DatabaseEvents;
  guard: LoginGuard;
  /** Per-realm extensions (login pages, token exchange, ...) installed on each new provider. */
  extend?: (runtime: RealmRuntime) => void;
}

const KEY_RELOAD_INTERVAL_MS = 10_000;

/** All realms of the deployment, each its own issuer with its own keys, clients and sessions. */
export class Realms {
  private readonly runtimes = new Map<Realm, RealmRuntime>();
  private readonly byIssuer = new Map<string, RealmRuntime>();
  private readonly lastReload = new Map<Realm, number>();
  /** Clients whose secret stored by an earlier start won over the one this start has. */
  private readonly keptSecrets = new Set<string>();

  private constructor(private readonly options: RealmsOptions) {}

  static async start(options: RealmsOptions): Promise<Realms> {
    const realms = new Realms(options);
    options.events.on(KEYS_ROTATED_CHANNEL, (realm) => {
      if (!realms.get(realm)) return;
      realms
        .build(realm as Realm)
        .catch((error: unknown) => options.logger.error({ err: error, realm }, 'reloading rotated keys failed'));
    });
    for (const realm of REALMS) {
      const definitions = options.clients.get(realm) ?? [];
      for (const clientId of await registerClients(options.orm, realm, definitions)) realms.keptSecrets.add(clientId);
      for (const clientId of await removeUndefinedClients(options.orm, realm, definitions)) {
        options.logger.warn({ realm, clientId }, 'removed a stored client that this start no longer defines');
      }
    }
    realms.checkDevelopmentClientSecret();
    for (const realm of REALMS) await realms.build(realm);
    return realms;
  }

  /**
   * Instances sharing a database share the development client: the secret stored first wins. A
   * generated (or DATA_DIR-kept) secret of this start then gives way; a configured one that
   * differs stops the start-up, since clients using it would be refused.
   */
  private checkDevelopmentClientSecret(): void {
    if (!this.keptSecrets.has(DEV_CLIENT_ID)) return;
    if (this.options.config.devClientSecret !== undefined) {
      throw new ConfigError(
        `DEV_CLIENT_SECRET differs from the secret of the development client ${DEV_CLIENT_ID} that is stored in the ` +
          'database (registered by another instance, or by a start with another DATA_DIR or DEV_CLIENT_SECRET); ' +
          'the stored secret is kept. Set DEV_CLIENT_SECRET to that secret, or unset it to use the stored one.',
      );
    }
    this.options.logger.warn(
      { clientId: DEV_CLIENT_ID },
      'the development client keeps the secret stored in the database by another instance; this start generated or kept a different one, which is not used',
    );
  }

  /** Whether a secret stored by an earlier start won over this start's for `clientId`. */
  keptStoredSecret(clientId: string): boolean {
    return this.keptSecrets.has(clientId);
  }

  issuerFor(realm: Realm): string {
    return `${this.options.baseUrl}/realms/${realm}`;
  }

  /** (Re)creates the realm's provider from the keys now in the database. */
  async build(realm: Realm): Promise<RealmRuntime> {
    const { config, orm, accounts, logger, extend, revocations } = this.options;
    const issuer = this.issuerFor(realm);
    const keys = await loadRealmKeys(orm, realm);
    const onGrantDestroyed = (_realm: string, grantId: string) => revocations.revoke(realm, grantId);
    const provider = createRealmProvider({ realm, issuer, orm, keys, config, accounts, logger, onGrantDestroyed });
    const resourceServer = apiResourceServer(config);
    registerPasswordGrant(provider, resourceServer, accounts, this.options.guard);
    const publicKeys = keys.signing.map(publicJwk);
    const runtime: RealmRuntime = {
      realm,
      issuer,
      provider,
      resourceServer,
      verificationKeys: createLocalJWKSet({ keys: publicKeys }),
      keyIds: new Set(publicKeys.map((key) => key.kid!)),
      csrfSecret: keys.cookieKeys[0],
      handle: provider.callback() as RealmRuntime['handle'],
    };
    extend?.(runtime);
    this.runtimes.set(realm, runtime);
    this.byIssuer.set(issuer, runtime);
    this.lastReload.set(realm, Date.now());
    return runtime;
  }

  get(realm: string): RealmRuntime | undefined {
    return this.runtimes.get(realm as Realm);
  }

  forIssuer(issuer: string): RealmRuntime | undefined {
    return this.byIssuer.get(issuer);
  }

  /**
   * Called when a token names a key this instance does not know: another instance may have
   * rotated keys. Reloads at most every few seconds, so forged key ids cannot cause a storm.
   */
  async refreshKeys(realm: Realm): Promise<RealmRuntime | undefined> {
    if (Date.now() - (this.lastReload.get(realm) ?? 0) < KEY_RELOAD_INTERVAL_MS) return undefined;
    return this.build(realm);
  }
}
