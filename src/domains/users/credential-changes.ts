import { forbidden } from '../../kernel/errors';
import type { Principal } from '../../kernel/principal';

/** The parts of an account a credential change is judged on. */
export interface AccountCredentials {
  id: string;
  username?: string | null;
  emails: readonly string[];
  passwordHash?: string | null;
}

/** The requested values of the fields that decide who can log in (null: unchanged). */
export interface CredentialFields {
  password?: string | null;
  username?: string | null;
  emails?: readonly string[] | null;
}

const lower = (value: string) => value.toLowerCase();

const sameAddresses = (a: readonly string[], b: readonly string[]) => {
  const left = new Set(a.map(lower));
  const right = new Set(b.map(lower));
  return left.size === right.size && [...left].every((address) => right.has(address));
};

/**
 * Whether the request changes how the account logs in or recovers access: a new password, or
 * login addresses (username, emails) that differ from the current ones. Echoing the current
 * values back, as clients do with a read-modify-write, changes nothing.
 */
export function changesCredentials(account: AccountCredentials, changes: CredentialFields): boolean {
  if (changes.password != null) return true;
  if (changes.username != null && lower(changes.username) !== lower(account.username ?? '')) return true;
  return changes.emails != null && !sameAddresses(changes.emails, account.emails);
}

/**
 * The current-password rule (as Keycloak's account console): a session token alone may not
 * change the password or the login addresses, or a token stolen for minutes becomes an account
 * taken for good. For an account that has a password, the proof is that account's own current
 * password, whoever asks: a custodian's own password proves nothing about the account (a stolen
 * token can make its thief a custodian), so a caller other than the owner, which cannot confirm
 * with the owner's password here, is refused (403). Server tokens need no proof, nor do
 * custodians of custodial accounts, which have no password to confirm.
 */
export function needsCurrentPassword(
  principal: Principal,
  account: AccountCredentials,
  changes: CredentialFields,
): boolean {
  if (principal.isServer || !changesCredentials(account, changes)) return false;
  if (principal.userId === account.id) return true;
  if (!account.passwordHash) return false;
  throw forbidden(
    'Changing the password, username or emails of an account that has a password needs its own currentPassword, ' +
      'confirmed by its owner (or a server token)',
  );
}
