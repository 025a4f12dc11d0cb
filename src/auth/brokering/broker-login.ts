import type { Request, Response } from 'express';
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
 * finishes as the linked, signed-in or provisioned account.
 */
export class BrokerLogin {
  constructor(
    private readonly broker: BrokerService,
    private readonly states: BrokerStates,
  ) {}

  async start(runtime: RealmRuntime, provider: IdentityProviderSettings, uid: string, res: Response): Promise<void> {
    const configuration = await this.broker.providers.configuration(runtime.realm, provider);
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    await this.states.put(runtime.realm, state, { uid, alias: provider.alias, codeVerifier, nonce });
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: brokerRedirectUri(runtime, provider.alias),
      scope: provider.scope ?? 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    res.redirect(303, url.href);
  }

  /**
   * The provider's answer: exchange the code, keep the identity under a fresh single-use key and
   * send the browser back to its login interaction (whose cookie only that path receives).
   * Returns undefined when the state is unknown or spent.
   */
  async complete(
    runtime: RealmRuntime,
    alias: string,
    req: Request,
  ): Promise<{ uid: string; key?: string; error?: string } | undefined> {
    const stateKey = typeof req.query.state === 'string' ? req.query.state : '';
    const state = stateKey ? await this.states.take(runtime.realm, stateKey) : undefined;
    const provider = this.broker.providers.find(runtime.realm, alias);
    if (!state || !provider || state.alias !== alias) return undefined;
    if (typeof req.query.error === 'string') return { uid: state.uid, error: req.query.error };
    const configuration = await this.broker.providers.configuration(runtime.realm, provider);
    const currentUrl = new URL(
      `${brokerRedirectUri(runtime, alias)}${req.originalUrl.slice(req.originalUrl.indexOf('?'))}`,
    );
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
