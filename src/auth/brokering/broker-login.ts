import * as client from 'openid-client';
import type { RealmRuntime } from '../realms';
import type { BrokerService } from './broker.service';
import type { BrokerStates } from './broker-states';
import type { IdentityProviderSettings } from './identity-providers';

export function brokerRedirectUri(runtime: RealmRuntime, alias: string): string {
  return `${runtime.issuer}/broker/${alias}/endpoint`;
}

/**
 * Brokered login (`kc_idp_hint`): the browser goes to the external provider (authorization code
 * with PKCE), comes back to `/broker/{alias}/endpoint`, and the login interaction `uid` then
 * finishes as the linked, signed-in or provisioned account. The browser's requests and redirects
 * are auth/interactions' part; this class gets and returns URLs.
 */
export class BrokerLogin {
  constructor(
    private readonly broker: BrokerService,
    private readonly states: BrokerStates,
  ) {}

  /** Where to send the browser: the external provider's authorization endpoint. */
  async start(runtime: RealmRuntime, provider: IdentityProviderSettings, uid: string): Promise<URL> {
    const configuration = await this.broker.providers.configuration(runtime.realm, provider);
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    await this.states.put(runtime.realm, state, { uid, alias: provider.alias, codeVerifier, nonce });
    return client.buildAuthorizationUrl(configuration, {
      redirect_uri: brokerRedirectUri(runtime, provider.alias),
      scope: provider.scope ?? 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
  }

  /**
   * The provider's answer: exchange the code, keep the identity under a fresh single-use key and
   * send the browser back to its login interaction (whose cookie only that path receives).
   * `search` is the query string the browser came back with. Returns undefined when the state is
   * unknown or spent.
   */
  async complete(
    runtime: RealmRuntime,
    alias: string,
    search: string,
  ): Promise<{ uid: string; key?: string; error?: string } | undefined> {
    const currentUrl = new URL(`${brokerRedirectUri(runtime, alias)}${search}`);
    const stateKey = onlyValue(currentUrl.searchParams, 'state') ?? '';
    const state = stateKey ? await this.states.take(runtime.realm, stateKey) : undefined;
    const provider = this.broker.providers.find(runtime.realm, alias);
    if (!state || !provider || state.alias !== alias) return undefined;
    const error = onlyValue(currentUrl.searchParams, 'error');
    if (error !== undefined) return { uid: state.uid, error };
    const configuration = await this.broker.providers.configuration(runtime.realm, provider);
    const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: state.codeVerifier,
      expectedState: stateKey,
      expectedNonce: state.nonce,
    });
    const identity = await this.broker.identityFromLogin(configuration, tokens);
    const key = client.randomState();
    await this.states.put(runtime.realm, key, { uid: state.uid, alias, identity });
    return { uid: state.uid, key };
  }
}

/** A parameter given once; a repeated one counts as absent. */
function onlyValue(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}
