import type { UserRecord } from '../domains/users/user.entity';
import type { UsersService } from '../domains/users/users.service';
import type { Orm } from '../infra/database/orm';

/**
 * What the identity provider needs to know about accounts, answered by the users domain. Kept
 * as an interface so auth never reaches into the users tables.
 */
export interface Account {
  id: string;
  username: string | null;
  emails: string[];
  emailVerified: boolean;
}

export interface AccountDirectory {
  findById(id: string): Promise<Account | null>;
  /** The account whose login name (username or email) and password match, else null. */
  authenticate(loginName: string, password: string): Promise<Account | null>;
  /** The id of the account a login name (username or email, any case) belongs to, else null. */
  accountIdOf(loginName: string): Promise<string | null>;
  claims(account: Account): Record<string, unknown>;
}

export function standardClaims(account: Account): Record<string, unknown> {
  const email = account.username ?? account.emails[0];
  return {
    sub: account.id,
    ...(email ? { email, email_verified: account.emailVerified, preferred_username: email } : {}),
  };
}

/** The users domain as the identity provider sees it; each call uses its own unit of work. */
export function accountDirectory(users: UsersService, orm: Orm): AccountDirectory {
  const toAccount = (user: UserRecord | null): Account | null =>
    user && { id: user.id, username: user.username ?? null, emails: user.emails, emailVerified: user.emailVerified };
  return {
    findById: async (id) => toAccount(await users.findById(orm.em.fork(), id)),
    authenticate: async (loginName, password) =>
      toAccount(await users.authenticate(orm.em.fork(), loginName, password)),
    accountIdOf: async (loginName) => (await users.findByEmail(orm.em.fork(), loginName.trim()))?.id ?? null,
    claims: standardClaims,
  };
}
