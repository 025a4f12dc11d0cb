import type { UserRecord } from './user.entity';

/**
 * Whether an account is custodial: created for someone by another account (a parent, a clinic's
 * clinician) and never given a password of its own. Its addresses are contact details someone
 * typed in, not proof of anything, so they must not keep the person they name from signing up.
 */
export function isCustodial(account: Pick<UserRecord, 'passwordHash' | 'createdUserId'>): boolean {
  return account.passwordHash === null && account.createdUserId !== null;
}

/** The custodial account's login once `address` (lower-cased) is released to the person signing up with it. */
export function releasing(
  account: Pick<UserRecord, 'username' | 'emails'>,
  address: string,
): Pick<UserRecord, 'username' | 'emails'> {
  return {
    username: account.username?.toLowerCase() === address ? null : account.username,
    emails: account.emails.filter((email) => email.toLowerCase() !== address),
  };
}

/**
 * The one address an account can verify (a sign-up confirmation or a password reset is mailed
 * there): its username, else its first email, lower-cased.
 */
export function verificationAddress(account: { username?: string | null; emails: readonly string[] }): string | null {
  return (account.username ?? account.emails[0])?.toLowerCase() ?? null;
}

/**
 * Whether a person signing up takes `address` (lower-cased) from the account that holds it:
 * every address of a custodial account, and any other account's address besides the one it
 * verifies by. Those are what someone typed, proving nothing, so they never keep the owner of
 * the address from signing up. The address an account verifies by stays its own (a 409 for the
 * sign-up); its mailbox's owner claims it with a password reset, which proves the address.
 */
export function yieldsToSignUp(
  holder: Pick<UserRecord, 'username' | 'emails' | 'passwordHash' | 'createdUserId'>,
  address: string,
): boolean {
  return isCustodial(holder) || verificationAddress(holder) !== address;
}
