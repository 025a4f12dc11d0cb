import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { HTTP_STATUS } from '../../http/http-errors';
import { bodyError } from '../../http/body-parsing';
import { isDatabaseUnavailable } from '../../infra/database/availability';
import { retryAfterOf } from '../../kernel/errors';
import type { Logger } from '../../infra/logger';
import type { Account } from '../accounts';
import type { BrokerLogin } from '../brokering/broker-login';
import type { BrokerService } from '../brokering/broker.service';
import type { BrokerStates } from '../brokering/broker-states';
import type { LoginGuard } from '../login-guard';
import { realmOf } from '../endpoints/realm-router';
import type { RealmRuntime } from '../realms';
import type { AccountPages } from './account-pages';
import { consentPage, loginPage, messagePage, PAGE_HEADERS, pageHeaders } from '../pages/pages';
import { STYLESHEET } from '../pages/stylesheet';

type Interaction = Awaited<ReturnType<RealmRuntime['provider']['interactionDetails']>>;

/** Pages the login flow can be sent back to with a fixed message (never free text from a URL). */
const NOTICES: Record<string, string> = {
  'broker-cancelled': 'Signing in with the other provider was cancelled or failed. Sign in here instead.',
  'broker-no-email': 'The other provider did not share an email address, so no account could be created.',
};

const parseForm = express.urlencoded({ extended: false, limit: '16kb' });

/** The login and consent forms; one that cannot be read gets a page saying why, never a 500. */
function form(req: Request, res: Response, next: NextFunction): void {
  parseForm(req, res, (error?: unknown) => {
    if (error === undefined) return next();
    const failure = bodyError(error, 'form');
    if (!failure) return next(error);
    res
      .status(HTTP_STATUS[failure.code])
      .set(PAGE_HEADERS)
      .send(messagePage({ realm: realmOf(res).realm, title: 'Invalid request' }, failure.message));
  });
}

/**
 * The realm's browser pages: login (with brute-force protection and brokered login), consent,
 * and the return from an external provider. Server-rendered, no JavaScript needed.
 */
export class InteractionRoutes {
  constructor(
    private readonly guard: LoginGuard,
    private readonly broker: BrokerService,
    private readonly brokerLogin: BrokerLogin,
    private readonly states: BrokerStates,
    private readonly logger: Logger,
    private readonly accountPages: AccountPages,
  ) {}

  router(): express.Router {
    const router = express.Router();
    router.get('/resources/islet.css', (_req, res) => {
      res.type('text/css').setHeader('Cache-Control', 'public, max-age=3600').send(STYLESHEET);
    });
    router.use(this.accountPages.router(form));
    router.get(
      '/login-actions/:uid',
      this.page((req, res, runtime, interaction) => this.show(req, res, runtime, interaction)),
    );
    router.post(
      '/login-actions/:uid/login',
      form,
      this.page((req, res, runtime, interaction) => this.login(req, res, runtime, interaction)),
    );
    router.post(
      '/login-actions/:uid/consent',
      form,
      this.page((req, res, runtime, interaction) => this.consent(req, res, runtime, interaction)),
    );
    router.get(
      '/login-actions/:uid/forgot',
      this.page(async (_req, res, runtime, interaction) =>
        this.accountPages.forgotForm(res, runtime, interaction.uid, this.csrf(runtime, interaction.uid)),
      ),
    );
    router.post(
      '/login-actions/:uid/forgot',
      form,
      this.page((req, res, runtime, interaction) => this.forgot(req, res, runtime, interaction)),
    );
    router.get(
      '/login-actions/:uid/abort',
      this.page((req, res, runtime) =>
        this.finish(req, res, runtime, { error: 'access_denied', error_description: 'The user cancelled' }),
      ),
    );
    router.get(
      '/login-actions/:uid/brokered',
      this.page((req, res, runtime, interaction) => this.brokered(req, res, runtime, interaction)),
    );
    router.get('/broker/:alias/endpoint', (req, res, next) => this.brokerReturn(req, res).catch(next));
    return router;
  }

  /** Loads the interaction the URL names; an expired or foreign one gets a friendly page. */
  private page(
    handler: (req: Request, res: Response, runtime: RealmRuntime, interaction: Interaction) => Promise<void>,
  ) {
    return async (req: Request, res: Response, next: NextFunction) => {
      const runtime = realmOf(res);
      res.set(PAGE_HEADERS);
      let interaction: Interaction;
      try {
        interaction = await runtime.provider.interactionDetails(req, res);
      } catch (error) {
        // The database away is an outage (503), not an expired sign-in.
        if (isDatabaseUnavailable(error)) return next(error);
        res
          .status(400)
          .send(
            messagePage(
              { realm: runtime.realm, title: 'Sign-in expired' },
              'This sign-in page has expired. Go back to the application and start again.',
            ),
          );
        return;
      }
      if (interaction.uid !== req.params.uid) {
        res
          .status(400)
          .send(
            messagePage(
              { realm: runtime.realm, title: 'Sign-in expired' },
              'This sign-in page does not belong to your browser session.',
            ),
          );
        return;
      }
      await handler(req, res, runtime, interaction).catch(next);
    };
  }

  private csrf(runtime: RealmRuntime, uid: string): string {
    return createHmac('sha256', runtime.csrfSecret).update(`login:${uid}`).digest('base64url');
  }

  private csrfValid(runtime: RealmRuntime, uid: string, presented: unknown): boolean {
    const expected = Buffer.from(this.csrf(runtime, uid));
    const actual = Buffer.from(typeof presented === 'string' ? presented : '');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private async clientName(runtime: RealmRuntime, interaction: Interaction): Promise<string> {
    const clientId = String(interaction.params.client_id ?? '');
    const found = await runtime.provider.Client.find(clientId);
    return found?.clientName ?? clientId;
  }

  private async renderLogin(
    res: Response,
    runtime: RealmRuntime,
    interaction: Interaction,
    extra: { status?: number; error?: string; notice?: string; username?: string },
  ) {
    const base = `/realms/${runtime.realm}`;
    res.set(pageHeaders(formTargets(interaction)));
    res.status(extra.status ?? 200).send(
      loginPage({
        realm: runtime.realm,
        title: 'Sign in',
        action: `${base}/login-actions/${interaction.uid}/login`,
        csrf: this.csrf(runtime, interaction.uid),
        username: extra.username ?? String(interaction.params.login_hint ?? ''),
        clientName: await this.clientName(runtime, interaction),
        error: extra.error,
        notice: extra.notice,
        forgotHref: `${base}/login-actions/${interaction.uid}/forgot`,
        brokers: this.broker.providers.list(runtime.realm).map((provider) => ({
          name: provider.display_name ?? provider.alias,
          href: `${base}/login-actions/${interaction.uid}?kc_idp_hint=${encodeURIComponent(provider.alias)}`,
        })),
      }),
    );
  }

  private async show(req: Request, res: Response, runtime: RealmRuntime, interaction: Interaction): Promise<void> {
    if (interaction.prompt.name === 'consent') return this.renderConsent(res, runtime, interaction);
    const hint = typeof req.query.kc_idp_hint === 'string' ? req.query.kc_idp_hint : interaction.params.kc_idp_hint;
    const provider = typeof hint === 'string' ? this.broker.providers.find(runtime.realm, hint) : undefined;
    // kc_idp_hint skips the login page; coming back with a notice means that route already failed.
    if (provider && !req.query.notice) {
      return res.redirect(303, (await this.brokerLogin.start(runtime, provider, interaction.uid)).href);
    }
    const notice = typeof req.query.notice === 'string' ? NOTICES[req.query.notice] : undefined;
    await this.renderLogin(res, runtime, interaction, { notice });
  }

  private async login(req: Request, res: Response, runtime: RealmRuntime, interaction: Interaction): Promise<void> {
    if (interaction.prompt.name !== 'login') return this.show(req, res, runtime, interaction);
    if (!this.csrfValid(runtime, interaction.uid, req.body?.csrf)) {
      this.logger.warn({ realm: runtime.realm }, 'login form refused: missing or wrong CSRF token');
      return this.renderLogin(res, runtime, interaction, { status: 403, error: 'This form has expired. Try again.' });
    }
    const username = String(req.body?.username ?? '').trim();
    const password = String(req.body?.password ?? '');
    if (!username || !password) {
      return this.renderLogin(res, runtime, interaction, {
        status: 400,
        username,
        error: 'Enter your email and password.',
      });
    }
    let account: Account | null;
    try {
      account = await this.guard.verify(username, password, req.ip ?? 'unknown', 'login_page');
    } catch (error) {
      const retryAfter = retryAfterOf(error);
      if (retryAfter === undefined) throw error;
      res.setHeader('Retry-After', String(retryAfter));
      return this.renderLogin(res, runtime, interaction, {
        status: 429,
        username,
        error: `Too many sign-in attempts. Try again in ${retryAfter} seconds.`,
      });
    }
    // The same answer whether the account does not exist, the password is wrong or it is locked.
    if (!account)
      return this.renderLogin(res, runtime, interaction, {
        status: 401,
        username,
        error: 'Invalid email or password.',
      });
    const pending = await this.states.take(runtime.realm, `link:${interaction.uid}`);
    if (pending?.identity) await this.broker.link(runtime.realm, pending.alias, pending.identity, account.id);
    await this.finish(req, res, runtime, { login: { accountId: account.id } });
  }

  private async forgot(req: Request, res: Response, runtime: RealmRuntime, interaction: Interaction): Promise<void> {
    const csrf = this.csrf(runtime, interaction.uid);
    if (!this.csrfValid(runtime, interaction.uid, req.body?.csrf)) {
      this.logger.warn({ realm: runtime.realm }, 'forgot-password form refused: missing or wrong CSRF token');
      return this.accountPages.forgotForm(res, runtime, interaction.uid, csrf, {
        status: 403,
        error: 'This form has expired. Try again.',
      });
    }
    await this.accountPages.sendForgot(req, res, runtime, interaction.uid, csrf);
  }

  private async renderConsent(res: Response, runtime: RealmRuntime, interaction: Interaction): Promise<void> {
    const details = interaction.prompt.details as { missingOIDCScope?: string[] };
    res.set(pageHeaders(formTargets(interaction)));
    res.send(
      consentPage({
        realm: runtime.realm,
        title: 'Allow access',
        action: `/realms/${runtime.realm}/login-actions/${interaction.uid}/consent`,
        csrf: this.csrf(runtime, interaction.uid),
        clientName: await this.clientName(runtime, interaction),
        scopes: details.missingOIDCScope ?? String(interaction.params.scope ?? '').split(' '),
      }),
    );
  }

  private async consent(req: Request, res: Response, runtime: RealmRuntime, interaction: Interaction): Promise<void> {
    if (interaction.prompt.name !== 'consent' || !this.csrfValid(runtime, interaction.uid, req.body?.csrf)) {
      return this.show(req, res, runtime, interaction);
    }
    if (req.body?.decision !== 'allow') {
      return this.finish(req, res, runtime, { error: 'access_denied', error_description: 'The user denied access' });
    }
    const grantId = await grantMissing(runtime, interaction);
    await this.finish(req, res, runtime, { consent: { grantId } });
  }

  private async brokered(req: Request, res: Response, runtime: RealmRuntime, interaction: Interaction): Promise<void> {
    const key = typeof req.query.state === 'string' ? req.query.state : '';
    const state = key ? await this.states.take(runtime.realm, key) : undefined;
    if (!state?.identity || state.uid !== interaction.uid)
      return this.renderLogin(res, runtime, interaction, { notice: NOTICES['broker-cancelled'] });
    const signedIn = interaction.session?.accountId ?? null;
    const resolution = await this.broker.resolve(runtime.realm, state.alias, state.identity, signedIn);
    if ('userId' in resolution) return this.finish(req, res, runtime, { login: { accountId: resolution.userId } });
    if ('missingEmail' in resolution)
      return this.renderLogin(res, runtime, interaction, { notice: NOTICES['broker-no-email'] });
    // An account already has this email: it must sign in here once to link the two.
    await this.states.put(runtime.realm, `link:${interaction.uid}`, {
      uid: interaction.uid,
      alias: state.alias,
      identity: state.identity,
    });
    const provider = this.broker.providers.find(runtime.realm, state.alias);
    await this.renderLogin(res, runtime, interaction, {
      username: resolution.existingEmail,
      notice: `An account with this email already exists. Sign in to link it with ${provider?.display_name ?? state.alias}.`,
    });
  }

  private async brokerReturn(req: Request, res: Response): Promise<void> {
    const runtime = realmOf(res);
    res.set(PAGE_HEADERS);
    const outcome = await this.brokerLogin
      .complete(runtime, String(req.params.alias), queryOf(req))
      .catch((error: unknown) => {
        this.logger.warn(
          { err: error, realm: runtime.realm, alias: req.params.alias },
          'brokered login failed at the provider',
        );
        return 'failed' as const;
      });
    if (outcome === undefined || outcome === 'failed') {
      res
        .status(400)
        .send(
          messagePage(
            { realm: runtime.realm, title: 'Sign-in failed' },
            'Signing in with the other provider did not complete. Go back to the application and start again.',
          ),
        );
      return;
    }
    const base = `/realms/${runtime.realm}/login-actions/${outcome.uid}`;
    res.redirect(303, outcome.key ? `${base}/brokered?state=${outcome.key}` : `${base}?notice=broker-cancelled`);
  }

  private async finish(
    req: Request,
    res: Response,
    runtime: RealmRuntime,
    result: Record<string, unknown>,
  ): Promise<void> {
    await runtime.provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }
}

/** The query string a request came with (`?...`), as written. */
function queryOf(req: Request): string {
  const start = req.originalUrl.indexOf('?');
  return start < 0 ? '' : req.originalUrl.slice(start);
}

/**
 * Where a submitted login or consent form ends up besides the service: the client's redirect
 * URI, which the provider has already checked against the client's registration.
 */
function formTargets(interaction: Interaction): string[] {
  const redirect = interaction.params.redirect_uri;
  return typeof redirect === 'string' ? [redirect] : [];
}

/** Creates (or extends) the grant with what the consent prompt found missing. */
async function grantMissing(runtime: RealmRuntime, interaction: Interaction): Promise<string> {
  const { provider } = runtime;
  const grant = interaction.grantId
    ? await provider.Grant.find(interaction.grantId)
    : new provider.Grant({ accountId: interaction.session!.accountId, clientId: String(interaction.params.client_id) });
  const details = interaction.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (details.missingOIDCScope) grant!.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant!.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {}))
    grant!.addResourceScope(indicator, scopes.join(' '));
  return grant!.save();
}
