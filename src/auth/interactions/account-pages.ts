import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import express, { type Request, type Response } from 'express';
import type { PasswordResetsService } from '../../domains/confirmations/password-resets.service';
import type { SignupConfirmationsService } from '../../domains/confirmations/signup-confirmations.service';
import type { Logger } from '../../infra/logger';
import { isAppError, type AppError } from '../../kernel/errors';
import type { Scope } from '../../kernel/scope';
import { anonymousScope } from '../../http/authenticate';
import { HTTP_STATUS } from '../../http/http-errors';
import { realmOf } from '../endpoints/realm-router';
import type { RealmRuntime } from '../realms';
import { accountFormPage, messagePage, PAGE_HEADERS, type AccountForm } from '../pages/pages';

const NEW_PASSWORD_FIELDS: AccountForm['fields'] = [
  { name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password' },
  { name: 'confirmation', label: 'New password again', type: 'password', autocomplete: 'new-password' },
];

const field = (req: Request, name: string) => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

/**
 * The pages of the mails' links and of "Forgot password?": ask for a reset link, set a new
 * password with it, confirm an address. A link's page shows a form and acts only when it is
 * submitted, so a mail scanner opening the link uses no key. Forms opened from a mail carry a
 * CSRF token bound to the key (a page of another site cannot know it); the ask-for-a-link form
 * belongs to a sign-in (see InteractionRoutes), as the login form does.
 */
export class AccountPages {
  constructor(
    private readonly signups: SignupConfirmationsService,
    private readonly resets: PasswordResetsService,
    private readonly entityManager: () => EntityManager,
    private readonly logger: Logger,
  ) {}

  /** The pages opened from mail; served before the sign-in pages, whose paths they would match. */
  router(parseForm: express.RequestHandler): express.Router {
    const router = express.Router();
    router.get('/login-actions/reset-password', (req, res, next) => this.showReset(req, res).catch(next));
    router.post('/login-actions/reset-password', parseForm, (req, res, next) => this.reset(req, res).catch(next));
    router.get('/login-actions/verify-email', (req, res) => this.showVerify(req, res));
    router.post('/login-actions/verify-email', parseForm, (req, res, next) => this.verify(req, res).catch(next));
    return router;
  }

  /** The form asking for the address to mail a reset link to, for the sign-in `uid`. */
  forgotForm(
    res: Response,
    runtime: RealmRuntime,
    uid: string,
    csrf: string,
    extra: { error?: string; status?: number } = {},
  ): void {
    const base = `/realms/${runtime.realm}/login-actions/${uid}`;
    res.status(extra.status ?? (extra.error ? 400 : 200)).send(
      accountFormPage({
        realm: runtime.realm,
        title: 'Forgot password?',
        lead: 'Enter the email address of your account: a link to choose a new password is mailed to it.',
        action: `${base}/forgot`,
        csrf,
        hidden: {},
        fields: [{ name: 'email', label: 'Email', type: 'email', autocomplete: 'username' }],
        button: 'Send the link',
        error: extra.error,
        back: { href: base, label: 'Back to sign in' },
      }),
    );
  }

  /** Mails the link (if an account has the address); the page says the same either way. */
  async sendForgot(req: Request, res: Response, runtime: RealmRuntime, uid: string, csrf: string): Promise<void> {
    const email = field(req, 'email').trim();
    try {
      await this.resets.send(this.scope(req), email, runtime.realm);
    } catch (error) {
      if (!isAppError(error) || error.code !== 'INVALID') throw error;
      return this.forgotForm(res, runtime, uid, csrf, { error: 'Enter the email address of your account.' });
    }
    res.send(
      messagePage(
        { realm: runtime.realm, title: 'Check your mail' },
        `If an account uses ${email}, a link to choose a new password is on its way there. It works once, for a limited time.`,
      ),
    );
  }

  private async showReset(req: Request, res: Response): Promise<void> {
    const runtime = realmOf(res);
    res.set(PAGE_HEADERS);
    const key = typeof req.query.key === 'string' ? req.query.key : '';
    let email: string;
    try {
      email = await this.resets.addressOf(this.scope(req), key);
    } catch (error) {
      return this.refusedKey(res, runtime, error);
    }
    res.send(this.resetForm(runtime, key, email));
  }

  private resetForm(runtime: RealmRuntime, key: string, email: string, error?: string): string {
    return accountFormPage({
      realm: runtime.realm,
      title: 'Choose a new password',
      lead: `For the account of ${email}. Setting it signs the account out everywhere.`,
      action: `/realms/${runtime.realm}/login-actions/reset-password`,
      csrf: this.csrf(runtime, 'reset', key),
      hidden: { key, email },
      fields: NEW_PASSWORD_FIELDS,
      button: 'Set the password',
      error,
    });
  }

  private async reset(req: Request, res: Response): Promise<void> {
    const runtime = realmOf(res);
    res.set(PAGE_HEADERS);
    const [key, email, password] = [field(req, 'key'), field(req, 'email'), field(req, 'password')];
    if (!this.csrfValid(runtime, 'reset', key, field(req, 'csrf'))) return this.expiredForm(res, runtime);
    if (password !== field(req, 'confirmation'))
      return void res.status(400).send(this.resetForm(runtime, key, email, 'The two passwords differ.'));
    try {
      await this.resets.accept(this.scope(req), { key, email, password });
    } catch (error) {
      if (isAppError(error) && error.code === 'INVALID')
        return void res.status(400).send(this.resetForm(runtime, key, email, error.message));
      return this.refusedKey(res, runtime, error);
    }
    res.send(
      messagePage(
        { realm: runtime.realm, title: 'Password changed' },
        'Your password is changed and the account is signed out everywhere. Go back to the application and sign in with the new password.',
      ),
    );
  }

  private showVerify(req: Request, res: Response): void {
    const runtime = realmOf(res);
    const key = typeof req.query.key === 'string' ? req.query.key : '';
    res.set(PAGE_HEADERS).send(
      accountFormPage({
        realm: runtime.realm,
        title: 'Confirm your email address',
        lead: 'Confirm that the address this link was mailed to is yours.',
        action: `/realms/${runtime.realm}/login-actions/verify-email`,
        csrf: this.csrf(runtime, 'verify', key),
        hidden: { key },
        fields: [],
        button: 'Confirm',
      }),
    );
  }

  private async verify(req: Request, res: Response): Promise<void> {
    const runtime = realmOf(res);
    res.set(PAGE_HEADERS);
    const key = field(req, 'key');
    if (!this.csrfValid(runtime, 'verify', key, field(req, 'csrf'))) return this.expiredForm(res, runtime);
    try {
      await this.signups.accept(this.scope(req), key);
    } catch (error) {
      return this.refusedKey(res, runtime, error);
    }
    res.send(
      messagePage({ realm: runtime.realm, title: 'Address confirmed' }, 'Thank you: your email address is confirmed.'),
    );
  }

  /** An unknown, expired or used key: the page says so (with its status), anything else is a failure. */
  private refusedKey(res: Response, runtime: RealmRuntime, error: unknown): void {
    if (!isAppError(error) || !['NOT_FOUND', 'CONFLICT'].includes(error.code)) throw error;
    const status = HTTP_STATUS[(error as AppError).code];
    res
      .status(status)
      .send(
        messagePage(
          { realm: runtime.realm, title: 'Link not valid' },
          'This link has expired, was already used or was replaced by a newer one. Ask for a new one from the sign-in page.',
        ),
      );
  }

  private expiredForm(res: Response, runtime: RealmRuntime): void {
    this.logger.warn({ realm: runtime.realm }, 'account form refused: missing or wrong CSRF token');
    res
      .status(403)
      .send(
        messagePage(
          { realm: runtime.realm, title: 'Form expired' },
          'This form has expired. Open the link from the mail again.',
        ),
      );
  }

  private csrf(runtime: RealmRuntime, purpose: string, key: string): string {
    return createHmac('sha256', runtime.csrfSecret).update(`${purpose}:${key}`).digest('base64url');
  }

  private csrfValid(runtime: RealmRuntime, purpose: string, key: string, presented: string): boolean {
    const expected = Buffer.from(this.csrf(runtime, purpose, key));
    const actual = Buffer.from(presented);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  /** A page's request acts as nobody: the key or the address is all it presents. */
  private scope(req: Request): Scope {
    return anonymousScope(req, this.entityManager, this.logger, null);
  }
}
