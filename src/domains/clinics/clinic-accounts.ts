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
  /** Which of these accounts exist. */
  existing(scope: Scope, ids: readonly string[]): Promise<Set<string>>;
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
