import type { EntityManager } from '@mikro-orm/postgresql';
import { verificationAddress } from './signup-confirmations.service';

/** What invitations read of accounts; the users domain answers (wired in services.ts). */
export interface InviteeAccounts {
  /** The addresses the account has verified (verifiedAddresses), lower-cased; null: no such account. */
  verifiedAddresses(em: EntityManager, userId: string): Promise<string[] | null>;
  /** The account that holds `email` as a login address, verified or not; null when none does. */
  holderOf(em: EntityManager, email: string): Promise<string | null>;
}

/**
 * The addresses an account has proved it receives mail at: the address its sign-up
 * confirmation was mailed to (or an identity provider vouched for), while `emailVerified` holds
 * (a change of its addresses clears it). Its other emails are what someone typed: they prove nothing.
 */
export function verifiedAddresses(
  account: Parameters<typeof verificationAddress>[0] & { emailVerified: boolean },
): string[] {
  const address = account.emailVerified ? verificationAddress(account) : null;
  return address ? [address] : [];
}
