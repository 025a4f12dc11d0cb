import * as oauth from 'oauth4webapi';
import type { PlaygroundSettings } from './settings';

/**
 * Refresh this long before the access token expires (at most, a fifth of its lifetime), so a
 * query never carries an expired one.
 */
const REFRESH_MARGIN_MS = 30_000;
const PENDING_KEY = 'islet-playground:pending-login';
const TOKENS_KEY = 'islet-playground:tokens';
const REALM_KEY = 'islet-playground:realm';

interface Tokens {
  realm: string;
  accessToken: string;
  refreshToken: string | undefined;
  /** Epoch milliseconds: when to refresh it. */
  refreshAt: number;
  /** Who signed in, from the ID token. */
  subject: string;
  /** The account's email, from the ID token; undefined for an account without one. */
  email: string | undefined;
  /** For signing out of the realm (RP-initiated logout). */
  idToken: string | undefined;
}

interface PendingLogin {
  realm: string;
  state: string;
  codeVerifier: string;
}

export interface SessionState {
  realm: string;
  subject: string | undefined;
  email: string | undefined;
  error: string | undefined;
}

/**
 * Sign-in for the playground: the realm's browser login (authorization code with PKCE S256) for
 * the public playground client, then its access token on each query, refreshed before it
 * expires. Tokens stay in this tab's sessionStorage, so a reload keeps the sign-in.
 */
export class PlaygroundSession {
  private tokens: Tokens | undefined;
  private refreshing: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private error: string | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly client: oauth.Client;
  private readonly servers = new Map<string, Promise<oauth.AuthorizationServer>>();
  realm: string;

  constructor(private readonly settings: PlaygroundSettings) {
    this.client = { client_id: settings.clientId };
    const stored = sessionStorage.getItem(REALM_KEY);
    this.realm = stored && settings.realms.includes(stored) ? stored : settings.defaultRealm;
    const tokens = sessionStorage.getItem(TOKENS_KEY);
    if (tokens) this.keep(JSON.parse(tokens) as Tokens);
  }

  state(): SessionState {
    return { realm: this.realm, subject: this.tokens?.subject, email: this.tokens?.email, error: this.error };
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  selectRealm(realm: string): void {
    if (!this.settings.realms.includes(realm) || realm === this.realm) return;
    this.realm = realm;
    sessionStorage.setItem(REALM_KEY, realm);
    this.signOut();
  }

  private issuer(realm: string): URL {
    return new URL(`${this.settings.issuerBase}${realm}`);
  }

  private options(issuer: URL) {
    // Development deployments serve plain HTTP on localhost; oauth4webapi wants that said.
    return { [oauth.allowInsecureRequests]: issuer.protocol === 'http:' };
  }

  private server(realm: string): Promise<oauth.AuthorizationServer> {
    let server = this.servers.get(realm);
    if (!server) {
      const issuer = this.issuer(realm);
      server = oauth
        .discoveryRequest(issuer, this.options(issuer))
        .then((response) => oauth.processDiscoveryResponse(issuer, response));
      server.catch(() => this.servers.delete(realm));
      this.servers.set(realm, server);
    }
    return server;
  }

  /** Leaves for the realm's login page; the page comes back to `redirectUri` with a code. */
  async signIn(): Promise<void> {
    try {
      await this.leaveForLogin();
    } catch (error) {
      this.fail('Sign-in failed', error);
      throw error;
    }
  }

  private async leaveForLogin(): Promise<void> {
    const as = await this.server(this.realm);
    const pending: PendingLogin = {
      realm: this.realm,
      state: oauth.generateRandomState(),
      codeVerifier: oauth.generateRandomCodeVerifier(),
    };
    sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: this.client.client_id,
      redirect_uri: this.settings.redirectUri,
      response_type: 'code',
      scope: 'openid email profile',
      state: pending.state,
      code_challenge: await oauth.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    }).toString();
    window.location.assign(url.href);
  }

  /** On the way back from the login page: trades the code for tokens and cleans the address bar. */
  async completeSignIn(location: URL): Promise<void> {
    const pendingJson = sessionStorage.getItem(PENDING_KEY);
    if (!location.searchParams.has('state') || !pendingJson) return;
    sessionStorage.removeItem(PENDING_KEY);
    window.history.replaceState(null, '', this.settings.redirectUri);
    const pending = JSON.parse(pendingJson) as PendingLogin;
    try {
      const as = await this.server(pending.realm);
      const issuer = this.issuer(pending.realm);
      const parameters = oauth.validateAuthResponse(as, this.client, location, pending.state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        this.client,
        oauth.None(),
        parameters,
        this.settings.redirectUri,
        pending.codeVerifier,
        this.options(issuer),
      );
      const result = await oauth.processAuthorizationCodeResponse(as, this.client, response, { requireIdToken: true });
      this.realm = pending.realm;
      const claims = oauth.getValidatedIdTokenClaims(result)!;
      const email = typeof claims.email === 'string' ? claims.email : undefined;
      this.keep(this.fromResponse(pending.realm, result, { subject: claims.sub, email }, result.id_token));
    } catch (error) {
      this.fail('Sign-in failed', error);
    }
  }

  private fromResponse(
    realm: string,
    result: oauth.TokenEndpointResponse,
    who: Pick<Tokens, 'subject' | 'email'>,
    idToken: string | undefined,
  ): Tokens {
    const lifetime = (result.expires_in ?? 60) * 1000;
    return {
      realm,
      accessToken: result.access_token,
      refreshToken: result.refresh_token,
      refreshAt: Date.now() + lifetime - Math.min(REFRESH_MARGIN_MS, lifetime / 5),
      ...who,
      idToken,
    };
  }

  private keep(tokens: Tokens): void {
    this.tokens = tokens;
    this.error = undefined;
    sessionStorage.setItem(TOKENS_KEY, JSON.stringify(tokens));
    clearTimeout(this.timer);
    if (tokens.refreshToken) {
      const due = Math.max(0, tokens.refreshAt - Date.now());
      this.timer = setTimeout(() => void this.refresh().catch(() => undefined), due);
    }
    this.changed();
  }

  /** Says what failed on the page (not only in the console). */
  private fail(what: string, error: unknown): void {
    this.error = `${what}: ${error instanceof Error ? error.message : String(error)}`;
    this.changed();
  }

  /** Forgets the tokens here. */
  signOut(): void {
    clearTimeout(this.timer);
    this.tokens = undefined;
    sessionStorage.removeItem(TOKENS_KEY);
    this.changed();
  }

  /**
   * Signs out of the realm too (its logout page, then back here), so the next sign-in may be
   * someone else.
   */
  async signOutOfRealm(): Promise<void> {
    const tokens = this.tokens;
    this.signOut();
    if (!tokens) return;
    const as = await this.server(tokens.realm);
    if (!as.end_session_endpoint) return;
    const url = new URL(as.end_session_endpoint);
    url.search = new URLSearchParams({
      client_id: this.client.client_id,
      post_logout_redirect_uri: this.settings.redirectUri,
      ...(tokens.idToken ? { id_token_hint: tokens.idToken } : {}),
    }).toString();
    window.location.assign(url.href);
  }

  /** Trades the refresh token for new tokens (one exchange at a time; the token rotates). */
  refresh(): Promise<void> {
    this.refreshing ??= this.doRefresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    const tokens = this.tokens;
    if (!tokens?.refreshToken) return;
    try {
      const as = await this.server(tokens.realm);
      const issuer = this.issuer(tokens.realm);
      const response = await oauth.refreshTokenGrantRequest(
        as,
        this.client,
        oauth.None(),
        tokens.refreshToken,
        this.options(issuer),
      );
      const result = await oauth.processRefreshTokenResponse(as, this.client, response);
      if (this.tokens === tokens)
        this.keep(
          this.fromResponse(
            tokens.realm,
            result,
            { subject: tokens.subject, email: tokens.email },
            result.id_token ?? tokens.idToken,
          ),
        );
    } catch (error) {
      // The session ended (signed out elsewhere, idle or too old): sign in again.
      this.signOut();
      this.fail('Signed out', error);
    }
  }

  /** A current access token, refreshed first when it is about to expire; undefined when signed out. */
  async accessToken(): Promise<string | undefined> {
    if (this.tokens && this.tokens.refreshAt <= Date.now()) await this.refresh();
    return this.tokens?.accessToken;
  }
}
