import fs from 'node:fs';
import * as client from 'openid-client';
import { REALMS, type Realm } from '../../config';

/** An external OpenID Connect provider a realm trusts for brokered login and token exchange. */
export interface IdentityProviderSettings {
  /** Name in URLs and in `kc_idp_hint` / `subject_issuer`. */
  alias: string;
  display_name?: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  /** JWT subject tokens: verify their signature against the provider's keys (else ask userinfo). */
  validate_signature?: boolean;
  /** JWT subject tokens must name this audience, when set. */
  audience?: string;
  scope?: string;
}

const KNOWN = new Set([
  'alias',
  'display_name',
  'issuer',
  'client_id',
  'client_secret',
  'validate_signature',
  'audience',
  'scope',
]);

function check(settings: IdentityProviderSettings, file: string): IdentityProviderSettings {
  const unknown = Object.keys(settings).filter((key) => !KNOWN.has(key));
  if (unknown.length) throw new Error(`${file}: unknown identity provider settings ${unknown.join(', ')}`);
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(String(settings.alias)))
    throw new Error(`${file}: alias must be 1-64 of a-z 0-9 _ -`);
  for (const name of ['issuer', 'client_id', 'client_secret'] as const) {
    if (typeof settings[name] !== 'string' || !settings[name])
      throw new Error(`${file}: ${settings.alias} needs ${name}`);
  }
  return settings;
}

export function readIdentityProviders(file: string | undefined): Map<Realm, IdentityProviderSettings[]> {
  const byRealm = new Map<Realm, IdentityProviderSettings[]>(REALMS.map((realm) => [realm, []]));
  if (!file) return byRealm;
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, IdentityProviderSettings[]>;
  for (const [key, list] of Object.entries(parsed)) {
    if (key !== '*' && !(REALMS as readonly string[]).includes(key)) throw new Error(`${file}: unknown realm "${key}"`);
    for (const settings of list) {
      check(settings, file);
      for (const realm of key === '*' ? REALMS : [key as Realm]) byRealm.get(realm)!.push(settings);
    }
  }
  return byRealm;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The identity providers of every realm, with their discovered OpenID configuration cached. */
export class IdentityProviders {
  private readonly discovered = new Map<string, Promise<client.Configuration>>();

  constructor(private readonly byRealm: Map<Realm, IdentityProviderSettings[]>) {}

  list(realm: Realm): IdentityProviderSettings[] {
    return this.byRealm.get(realm) ?? [];
  }

  /** By alias, or by issuer URL (token exchange's `subject_issuer` may name either). */
  find(realm: Realm, aliasOrIssuer: string): IdentityProviderSettings | undefined {
    return this.list(realm).find((provider) => provider.alias === aliasOrIssuer || provider.issuer === aliasOrIssuer);
  }

  /** openid-client's view of the provider (discovery document, client credentials). */
  configuration(realm: Realm, provider: IdentityProviderSettings): Promise<client.Configuration> {
    const key = `${realm}:${provider.alias}`;
    let configuration = this.discovered.get(key);
    if (!configuration) {
      const issuer = new URL(provider.issuer);
      // Plain HTTP only for providers on this machine (tests, local development).
      const insecure = issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname);
      configuration = client
        .discovery(
          issuer,
          provider.client_id,
          provider.client_secret,
          undefined,
          insecure ? { execute: [client.allowInsecureRequests] } : undefined,
        )
        .catch((error: unknown) => {
          this.discovered.delete(key);
          throw error;
        });
      this.discovered.set(key, configuration);
    }
    return configuration;
  }
}
