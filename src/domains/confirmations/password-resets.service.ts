import { notFound } from '../../kernel/errors';
import type { Scope } from '../../kernel/scope';
import { assertEmail, assertPassword } from '../../kernel/validation';
import { isCustodial } from '../users/custodial-addresses';
import type { UsersService } from '../users/users.service';
import { passwordResetMail, type AccountMailLinks } from './account-mails';
import { lifetimeOf, type ConfirmationLifetimes, type ConfirmationStore } from './confirmations.store';
import { ignoreRateLimit, verificationAddress } from './signup-confirmations.service';

const TYPES = ['password_reset'] as const;

/** What a reset's key unlocks, told to whoever ends the account's sessions (src/auth). */
export type SessionsEnder = (userId: string) => Promise<void>;

export interface PasswordResetRequest {
  key: string;
  email: string;
  password: string;
}

/**
 * Password reset by mail (hydrophone's "forgot" confirmations). Asking never tells whether an
 * address has an account: the answer is the same, and so is the work up to the database (the
 * mail is rendered either way; no password is hashed). Custodial accounts are not reset this way:
 * their addresses are contact details typed in by a custodian, not their owner's proof.
 */
export class PasswordResetsService {
  constructor(
    private readonly store: ConfirmationStore,
    private readonly users: UsersService,
    private readonly links: AccountMailLinks,
    private readonly lifetimes: ConfirmationLifetimes,
    private readonly endSessions: SessionsEnder,
  ) {}

  /** Mails a reset key to `email` if an account logs in with it; answers the same either way. */
  async send(scope: Scope, email: string, realm = this.links.realm): Promise<void> {
    assertEmail(email, 'email');
    const address = email.trim().toLowerCase();
    const account = await this.users.findByEmail(scope.em, address);
    const lifetime = lifetimeOf(this.lifetimes, 'password_reset');
    const render = (key: string) => passwordResetMail({ ...this.links, realm }, address, key, lifetime);
    if (!account || isCustodial(account)) {
      render('-'.repeat(32));
      return;
    }
    await scope.em
      .transactional(async (tx) => {
        await this.store.cancelPending(tx, 'password_reset', { userId: account.id });
        await this.store.create(
          tx,
          { type: 'password_reset', email: address, creatorId: account.id, userId: account.id },
          render,
          { source: scope.remoteAddress },
        );
      })
      .catch(ignoreRateLimit);
  }

  /** The address a pending reset key was mailed to, for the page that sets the password (404 / 409 as accept). */
  async addressOf(scope: Scope, key: string): Promise<string> {
    return (await this.store.pending(scope.em, TYPES, key)).email;
  }

  /**
   * Sets the new password of the account the key was mailed for, when `email` is the address it
   * was mailed to (otherwise the key is unknown: 404); every session and refresh token of the
   * account ends. The mailbox is proven, so an account verifying by that address is verified.
   */
  async accept(scope: Scope, request: PasswordResetRequest): Promise<void> {
    assertPassword(request.password);
    assertEmail(request.email, 'email');
    const address = request.email.trim().toLowerCase();
    const userId = await scope.em.transactional(async (tx) => {
      const confirmation = await this.store.complete(tx, TYPES, request.key, (found) => {
        if (found.email !== address || !found.userId) throw notFound('No confirmation has this key');
      });
      const account = await this.users.findById(tx, confirmation.userId!);
      if (!account) throw notFound('No confirmation has this key');
      await this.users.replacePassword(tx, account.id, request.password);
      if (verificationAddress(account) === address) await this.users.markEmailVerified(tx, account.id);
      await this.store.cancelPending(tx, 'password_reset', { userId: account.id });
      return account.id;
    });
    await this.endSessions(userId);
  }
}
