import { forbidden, unauthenticated } from '../../kernel/errors';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import { assertUserId } from '../../kernel/validation';

/** What the clinic domain reads of accounts; the users domain answers (wired in services.ts). */
export interface ClinicAccounts {
  /**
   * The addresses an account logs in with (its username and emails, lower-cased), read as the
   * caller; null when there is no such account or the caller may not read it.
   */
  addresses(scope: Scope, userId: string): Promise<string[] | null>;
  /**
   * The same addresses, each with when it became the account's, read as the caller; null when
   * there is no such account or the caller may not read it.
   */
  datedAddresses(scope: Scope, userId: string): Promise<DatedAddress[] | null>;
  /**
   * The addresses the account has verified (users/verified-addresses), lower-cased, read as the
   * caller; null when there is no such account or the caller may not read it.
   */
  verifiedAddresses(scope: Scope, userId: string): Promise<string[] | null>;
  /** Which of these accounts exist. */
  existing(scope: Scope, ids: readonly string[]): Promise<Set<string>>;
}

/** A login address of an account (lower-cased), and when it became the account's. */
export interface DatedAddress {
  email: string;
  addedTime: Date;
}

/**
 * The clinician invitations an account is shown by addresses it has not verified: only those
 * sent to an address the account already held then. One added afterwards (anyone may type any
 * address into its account) shows nothing. Answering without the mailed key also takes the
 * address verified (CliniciansService.answerable). MikroORM conditions on the invitation's
 * `email` and `createdTime`, matching nothing for no address.
 */
export function claimableBy(addresses: readonly DatedAddress[]) {
  return addresses.length
    ? { $or: addresses.map(({ email, addedTime }) => ({ email, createdTime: { $gte: addedTime } })) }
    : { email: { $in: [] as string[] } };
}

/**
 * Operations on a user's own clinic life (its invites, its clinics): the user itself or a
 * server token. Missing credentials come first (401), then a malformed id (400).
 */
export function assertSelfOrServer(scope: Scope, userId: string): void {
  const { principal } = scope;
  if (!isAuthenticated(principal)) throw unauthenticated();
  assertUserId(userId);
  if (!principal.isServer && principal.userId !== userId) throw forbidden();
}
