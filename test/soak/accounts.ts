import { CLIENT_SECRET, type BenchEnvironment } from '../bench/setup';
import { signUpUser } from '../bench/scenarios/seed';
import { json, RequestFailed, send } from './outcomes';

/** Access tokens live 5 minutes (ACCESS_TOKEN_TTL); an account refreshes its own well before that. */
const REFRESH_AFTER_MS = 120_000;

interface Tokens {
  access: string;
  /** Undefined once the service refused it. */
  refresh: string | undefined;
  obtainedAt: number;
}

/** signUpUser and serverLogin read nothing of the bench environment but the service's URL. */
export const benchView = (url: string) => ({ app: { url } }) as BenchEnvironment;

/**
 * A signed-up account that holds OAuth tokens from the realm's token endpoint (the bench's
 * trusted partner client: password grant, then refresh grants). Grants of one account run one
 * at a time: refresh tokens rotate, and two refreshes with the same token would revoke the grant.
 */
export class Account {
  private tokens: Tokens | undefined;
  private grants: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly baseUrl: string,
    readonly userId: string,
    readonly email: string,
    private readonly password: string,
  ) {}

  static async signUp(baseUrl: string, prefix: string): Promise<Account> {
    const user = await signUpUser(benchView(baseUrl), prefix);
    const account = new Account(baseUrl, user.userid, user.email, user.password);
    await account.logIn();
    return account;
  }

  /** A password grant: new tokens, whatever the state of the old ones. */
  logIn(): Promise<void> {
    return this.serially(() => this.passwordGrant());
  }

  /**
   * A refresh grant. A refused one is a failure; the account then logs in again on its next
   * refresh, so one refusal does not cascade into every later request.
   */
  refresh(): Promise<void> {
    return this.serially(() => this.refreshGrant());
  }

  /** A current access token, refreshed first when it is getting old. */
  async accessToken(): Promise<string> {
    if (this.isOld()) {
      // Workers that find it old together refresh it once; a refresh that fails during an
      // outage leaves the old token, still valid for a while.
      await this.serially(() => (this.isOld() ? this.refreshGrant() : Promise.resolve())).catch((error: unknown) => {
        if (!this.tokens || !(error instanceof RequestFailed) || error.kind === 'failure') throw error;
      });
    }
    return this.tokens!.access;
  }

  private isOld(): boolean {
    return !this.tokens || Date.now() - this.tokens.obtainedAt > REFRESH_AFTER_MS;
  }

  private async refreshGrant(): Promise<void> {
    const refreshToken = this.tokens?.refresh;
    if (!refreshToken) return this.passwordGrant();
    try {
      await this.grant({ grant_type: 'refresh_token', refresh_token: refreshToken });
    } catch (error) {
      if (error instanceof RequestFailed && error.kind === 'failure') this.tokens!.refresh = undefined;
      throw error;
    }
  }

  private serially(grant: () => Promise<void>): Promise<void> {
    const next = this.grants.then(grant, grant);
    this.grants = next.catch(() => undefined);
    return next;
  }

  private passwordGrant(): Promise<void> {
    return this.grant({ grant_type: 'password', username: this.email, password: this.password });
  }

  private async grant(form: Record<string, string>): Promise<void> {
    const answer = await send(
      `${this.baseUrl}/realms/dev1/protocol/openid-connect/token`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: 'bench-partner', client_secret: CLIENT_SECRET, ...form }).toString(),
      },
      200,
    );
    const body = json<{ access_token: string; refresh_token?: string }>(answer);
    if (!body.refresh_token) throw new RequestFailed('failure', `the ${form.grant_type} grant gave no refresh token`);
    this.tokens = { access: body.access_token, refresh: body.refresh_token, obtainedAt: Date.now() };
  }
}
