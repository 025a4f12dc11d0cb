import { conflict, invalid, isAppError, notFound } from '../../kernel/errors';
import type { Scope } from '../../kernel/scope';
import { assertEmail } from '../../kernel/validation';
import { assertSelfOrServer } from '../clinics/clinic-accounts';
import { verificationAddress } from '../users/custodial-addresses';
import type { UsersService } from '../users/users.service';
import { signupMail, type AccountMailLinks } from './account-mails';
import type { ConfirmationRecord } from './confirmation.entity';
import { lifetimeOf, type ConfirmationLifetimes, type ConfirmationStore } from './confirmations.store';

const TYPES = ['signup_confirmation'] as const;

/** What verification reads of an account. */
export interface AccountLogin {
  id: string;
  username?: string | null;
  emails: readonly string[];
  emailVerified: boolean;
}

/** The address a sign-up confirmation proves: the users domain's rule (an account verifies one address). */
export { verificationAddress };

/**
 * Sign-up verification (hydrophone's signup confirmations): a key mailed to the account's
 * address; presenting it marks the account's `emailVerified`. A new key replaces the older ones,
 * and a change of the account's addresses ends them (the account is unverified again and gets
 * a key for its new address).
 */
export class SignupConfirmationsService {
  constructor(
    private readonly store: ConfirmationStore,
    private readonly users: UsersService,
    private readonly links: AccountMailLinks,
    private readonly lifetimes: ConfirmationLifetimes,
  ) {}

  /** The account (or a server) asks for a key: 409 when already verified, 400 when it has no address. */
  async send(scope: Scope, userId: string): Promise<ConfirmationRecord> {
    assertSelfOrServer(scope, userId);
    const account = await this.users.findById(scope.em, userId);
    if (!account) throw notFound('User not found');
    if (account.emailVerified) throw conflict('The email address of this account is already verified');
    return this.mailKey(scope, account);
  }

  /**
   * A new key for an unverified account by its address, asked by anyone (the sign-up page): the
   * answer is the same whether the address is an unverified account's, a verified one's or
   * nobody's, so it tells nothing about who has an account. So is a refused mail (too many for
   * the address or the source): the limit still keeps the mailbox from being flooded.
   */
  async resend(scope: Scope, email: string): Promise<void> {
    assertEmail(email, 'email');
    const account = await this.users.findByEmail(scope.em, email);
    if (!account || account.emailVerified || verificationAddress(account) !== email.toLowerCase()) return;
    await this.mailKey(scope, account).catch(ignoreRateLimit);
  }

  /** The key's owner confirms the address: `emailVerified` becomes true (404 unknown or expired, 409 used). */
  async accept(scope: Scope, key: string): Promise<void> {
    await scope.em.transactional(async (tx) => {
      const confirmation = await this.store.complete(tx, TYPES, key);
      const account = confirmation.userId ? await this.users.findById(tx, confirmation.userId) : null;
      // The account changed its address since (which cancels the key) or is gone: nothing to verify.
      if (!account || verificationAddress(account) !== confirmation.email)
        throw notFound('No confirmation has this key');
      if (account.emailVerified) throw conflict('The email address of this account is already verified');
      await this.users.markEmailVerified(tx, account.id);
    });
  }

  /** After the account's addresses changed: older keys end, and its (new) address gets one. */
  async addressesChanged(scope: Scope, account: AccountLogin): Promise<void> {
    if (account.emailVerified) return;
    await this.mailKey(scope, account).catch((error: unknown) => {
      // The change is made; a mail refused by its limits is asked for again with resend.
      ignoreRateLimit(error);
      scope.logger.warn({ userId: account.id }, 'no sign-up confirmation mailed after an address change: mail limit');
    });
  }

  private async mailKey(scope: Scope, account: AccountLogin): Promise<ConfirmationRecord> {
    const address = verificationAddress(account);
    if (!address) throw invalid('The account has no email address to confirm', 'userId');
    const lifetime = lifetimeOf(this.lifetimes, 'signup_confirmation');
    return scope.em.transactional(async (tx) => {
      await this.store.cancelPending(tx, 'signup_confirmation', { userId: account.id });
      const { confirmation } = await this.store.create(
        tx,
        { type: 'signup_confirmation', email: address, creatorId: account.id, userId: account.id },
        (key) => signupMail(this.links, address, key, lifetime),
        { source: scope.remoteAddress },
      );
      return confirmation;
    });
  }
}

/** A mail refused by its limits is dropped silently where an error would tell whether the address has an account. */
export function ignoreRateLimit(error: unknown): void {
  if (!isAppError(error) || error.code !== 'RATE_LIMITED') throw error;
}
