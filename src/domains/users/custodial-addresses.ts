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
