import type { EntityManager } from '@mikro-orm/postgresql';
import { forbidden, invalid, notFound, unauthenticated } from '../../kernel/errors';
import { hexId } from '../../kernel/ids';
import { isAuthenticated, type Principal } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import {
  assertEmail,
  assertEmails,
  assertPassword,
  assertUserId,
  tooManyEntries,
  USER_ID_PATTERN,
} from '../../kernel/validation';
import type { AccessPolicy } from '../permissions/access-policy';
import { changesCredentials, needsCurrentPassword } from './credential-changes';
import { releasing, yieldsToSignUp } from './custodial-addresses';
import { hashPassword, verifyAgainstDecoy, verifyPassword } from './password-hash';
import type { AccountCache } from './account-cache';
import type { UserRecord } from './user.entity';
import { keptUserLoader, readableUserLoader, userLoader } from './users.loaders';
import {
  addressesOf,
  existingUserIds,
  findUserByEmail,
  findUserById,
  holdUser,
  managedUser,
  newUser,
  saveUserWithEmails,
  updateUser,
} from './users.repository';

/** A login address of an account, and when it became the account's. */
export interface AccountAddress {
  email: string;
  addedTime: Date;
}

/** The roles an account may hold: the specification allows `clinic` alone. */
export const ASSIGNABLE_ROLES = ['clinic'] as const;

export interface NewAccount {
  username: string;
  emails: string[];
  password: string;
  roles?: string[] | null;
}

export interface UserChanges {
  username?: string | null;
  emails?: string[] | null;
  password?: string | null;
  termsAccepted?: Date | null;
  roles?: string[] | null;
  emailVerified?: boolean | null;
  /** The caller's current password, needed to change the password, username or emails. */
  currentPassword?: string | null;
}

/**
 * Checks a password the way a login does, so guesses count towards brute-force lockouts (the
 * auth module's login guard); `check` is the bare comparison.
 */
export type GuardedPasswordCheck = (
  loginName: string,
  source: string,
  check: () => Promise<boolean>,
) => Promise<boolean>;

/** Told after an account's password changed (its other sessions end); `by` made the change. */
export type PasswordChangedHook = (userId: string, by: Principal) => Promise<void>;

/** Told after an account's login addresses changed (it is unverified again until it confirms one). */
export type AddressesChangedHook = (scope: Scope, account: UserRecord) => Promise<void>;

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value) => b.includes(value));

export class UsersService {
  private guardedCheck: GuardedPasswordCheck = (_loginName, _source, check) => check();
  private readonly passwordChangedHooks: PasswordChangedHook[] = [];
  private readonly addressesChangedHooks: AddressesChangedHook[] = [];

  constructor(
    private readonly access: AccessPolicy,
    private readonly kept: AccountCache,
  ) {}

  /** Before an account's row is written: this instance reads it from the database until the change settles. */
  willChange(userId: string): void {
    this.kept.changing(userId);
  }

  /** Routes current-password checks through brute-force protection. */
  guardPasswordChecks(check: GuardedPasswordCheck): void {
    this.guardedCheck = check;
  }

  /** Registers what must happen once a password has changed (ending the account's other sessions). */
  onPasswordChanged(hook: PasswordChangedHook): void {
    this.passwordChangedHooks.push(hook);
  }

  /** Registers what must happen once an account's login addresses changed (a new sign-up confirmation). */
  onAddressesChanged(hook: AddressesChangedHook): void {
    this.addressesChangedHooks.push(hook);
  }

  async signUp(scope: Scope, input: NewAccount): Promise<UserRecord> {
    assertEmail(input.username, 'username');
    assertEmails(input.emails, 'emails', { allowEmpty: false });
    assertPassword(input.password);
    const roles = this.checkRoles(input.roles ?? []);
    const passwordHash = await hashPassword(input.password);
    const fields = { username: input.username, emails: input.emails, passwordHash, roles };
    return this.insert(scope.em, fields, null, { takesCustodialAddresses: true });
  }

  /** The caller's own account. */
  async me(scope: Scope): Promise<UserRecord> {
    const { userId } = scope.principal;
    if (userId === null) throw unauthenticated('A user token is required');
    const user = await keptUserLoader(scope, this.kept).load(userId);
    if (!user) throw unauthenticated('The account of this token no longer exists');
    return user;
  }

  /** A user by id (or, as shoreline allows, by one of its email addresses). */
  async get(scope: Scope, idOrEmail: string): Promise<UserRecord> {
    const userId = await this.resolveId(scope, idOrEmail);
    await this.access.assertAllowed(scope, userId ?? idOrEmail, ['custodian']);
    const user = userId ? await userLoader(scope).load(userId) : null;
    if (!user) throw notFound('User not found');
    return user;
  }

  /**
   * Changes an account. Every check runs before anything is assigned, so a refused request
   * changes nothing; a new password then ends every other session of the account.
   */
  async update(scope: Scope, userId: string, changes: UserChanges): Promise<UserRecord> {
    const current = await this.get(scope, userId);
    const { principal } = scope;
    const isOwner = principal.userId === current.id;
    // What a custodian may change is the account's login (its username and emails): custodian
    // through a clinic does so only for the clinic's admins.
    if (!isOwner && !principal.isServer) await this.access.assertAllowed(scope, current.id, 'account-control');
    if (changes.emailVerified != null && changes.emailVerified !== current.emailVerified && !principal.isServer) {
      throw forbidden('Only a server token may change emailVerified');
    }
    const roles = changes.roles != null ? this.checkRoles(changes.roles) : null;
    if (roles && !sameSet(roles, current.roles) && !principal.isServer) {
      throw forbidden('Only a server token may change roles');
    }
    if ((changes.password != null || changes.termsAccepted != null) && !(isOwner || principal.isServer)) {
      throw forbidden('Only the account owner may change its password or accept terms');
    }
    const password = changes.password != null ? assertPassword(changes.password) : null;
    const username = changes.username != null ? assertEmail(changes.username, 'username') : null;
    const emails =
      changes.emails != null
        ? assertEmails(changes.emails, 'emails', { allowEmpty: current.passwordHash === null && password === null })
        : null;
    if (needsCurrentPassword(principal, current, { password, username, emails })) {
      await this.confirmCurrentPassword(scope, current, changes.currentPassword);
    }

    // The loader hands out plain snapshots; the account being changed becomes a managed entity.
    const user = managedUser(scope.em, current);
    if (roles) user.roles = roles;
    if (changes.emailVerified != null) user.emailVerified = changes.emailVerified;
    if (changes.termsAccepted != null) user.termsAccepted = changes.termsAccepted;
    if (password !== null) user.passwordHash = await hashPassword(password);
    // New login addresses are unverified until their owner confirms them (unless a server says otherwise).
    const addressesChanged = changesCredentials(current, { username, emails });
    if (addressesChanged && changes.emailVerified == null) user.emailVerified = false;
    if (username !== null) user.username = username;
    if (emails !== null) user.emails = emails;
    user.modifiedTime = new Date();
    user.modifiedUserId = principal.userId;
    this.willChange(user.id);
    await this.saveWithEmails(scope.em, user);
    userLoader(scope).clear(user.id).prime(user.id, user);
    if (password !== null) for (const hook of this.passwordChangedHooks) await hook(user.id, principal);
    if (addressesChanged) for (const hook of this.addressesChangedHooks) await hook(scope, user);
    return user;
  }

  /** Marks the account's address verified (its owner presented the key mailed to it). */
  async markEmailVerified(tx: EntityManager, userId: string): Promise<void> {
    this.willChange(userId);
    await updateUser(tx, userId, { emailVerified: true, modifiedTime: new Date() });
  }

  /**
   * Sets a new password for an account whose owner proved its address (a password reset): the
   * same rules and hashing as a password change. The caller ends the account's sessions.
   */
  async replacePassword(tx: EntityManager, userId: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(assertPassword(password));
    this.willChange(userId);
    await updateUser(tx, userId, { passwordHash, modifiedTime: new Date(), modifiedUserId: userId });
  }

  /**
   * The caller proves it is itself, not just a token: its own current password, checked like a
   * login (wrong guesses count towards lockouts). Missing is a 400 naming the field, wrong a 403.
   */
  private async confirmCurrentPassword(scope: Scope, account: UserRecord, presented: string | null | undefined) {
    if (presented == null || presented === '') {
      throw invalid('currentPassword is required to change the password, username or emails', 'currentPassword');
    }
    const { userId } = scope.principal;
    const caller = userId === account.id ? account : userId ? await userLoader(scope).load(userId) : null;
    if (!caller || !(await this.isOwnPassword(scope, caller, presented))) {
      throw forbidden('currentPassword is not the current password');
    }
  }

  /**
   * Whether `presented` is the account's password, checked like a login: guesses count towards
   * lockouts and spend the password budget (a spent one refuses with RATE_LIMITED).
   */
  async isOwnPassword(scope: Scope, account: UserRecord, presented: string): Promise<boolean> {
    const loginName = account.username ?? account.emails[0];
    const hash = account.passwordHash;
    if (!loginName || !hash) return false;
    return this.guardedCheck(loginName, scope.remoteAddress, () => verifyPassword(presented, hash));
  }

  /** The most entries one lookup by ids takes. */
  static readonly MAX_IDS = 100;

  /**
   * How many entries a lookup by ids holds, refusing more than MAX_IDS. Duplicates count: each
   * entry has its own place in the answer, so the raw length is what bounds the answer's size.
   */
  static assertIdCount(ids: readonly unknown[]): number {
    if (ids.length > UsersService.MAX_IDS) throw tooManyEntries('ids', ids.length, UsersService.MAX_IDS);
    return ids.length;
  }

  /**
   * Accounts by id that the caller may read, in the order asked; null where it may not or none
   * exists. At most MAX_IDS entries; each distinct id is checked and read once.
   */
  async many(scope: Scope, ids: readonly string[]): Promise<(UserRecord | null)[]> {
    UsersService.assertIdCount(ids);
    ids.forEach((id) => assertUserId(id, 'ids'));
    return this.readableAmong(scope, ids);
  }

  /**
   * An account by id (as stored: a share's other account) if the caller may read it, else null,
   * as `get` answers FORBIDDEN or NOT_FOUND. Lookups in the same request are batched: one access
   * check and one SELECT for a whole page of shares.
   */
  async readable(scope: Scope, userId: string): Promise<UserRecord | null> {
    if (!isAuthenticated(scope.principal)) throw unauthenticated();
    return readableUserLoader(scope, (ids) => this.readableAmong(scope, ids)).load(userId);
  }

  /** Each distinct id is checked and read once; null where the caller may not read one or none exists. */
  private async readableAmong(scope: Scope, ids: readonly string[]): Promise<(UserRecord | null)[]> {
    const distinct = [...new Set(ids)];
    const allowed = await this.access.allowedTargets(scope, distinct, ['custodian']);
    const users = await keptUserLoader(scope, this.kept).loadMany(distinct.filter((id) => allowed.has(id)));
    const byId = new Map(users.filter((user) => user !== null).map((user) => [user.id, user]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * Login names (the username, else the first email address) of accounts by id, without access
   * checks: for the access log, which shows them only where its own rule allows.
   */
  async loginNames(scope: Scope, ids: readonly string[]): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    for (const user of await keptUserLoader(scope, this.kept).loadMany(ids)) {
      const name = user && (user.username ?? user.emails[0]);
      if (name) names.set(user.id, name);
    }
    return names;
  }

  /**
   * The account's login addresses (its username and emails, lower-cased), each with when it
   * became the account's, oldest first. No access check: for what the caller already may read.
   */
  addressesOf(em: EntityManager, userId: string): Promise<AccountAddress[]> {
    return addressesOf(em, userId);
  }

  /** Which of `ids` are accounts. */
  async existing(scope: Scope, ids: readonly string[]): Promise<Set<string>> {
    const users = await userLoader(scope).loadMany(ids);
    return new Set(users.filter((user) => user !== null).map((user) => user.id));
  }

  /**
   * Which of `ids` are accounts, read through `em` (for work done outside any request, such as
   * the access log's writer). What is not shaped like an account id is not asked about.
   */
  async existingIds(em: EntityManager, ids: readonly string[]): Promise<Set<string>> {
    const candidates = ids.filter((id) => USER_ID_PATTERN.test(id));
    if (!candidates.length) return new Set();
    return existingUserIds(em, candidates);
  }

  /**
   * Inside a transaction that records something an account owns: whether the account still
   * exists, holding it (FOR SHARE) until that transaction ends. An account deletion running
   * meanwhile either waits for the record (and then removes it) or has already removed the
   * account, and this answers false.
   */
  holdExisting(tx: EntityManager, id: string): Promise<boolean> {
    return holdUser(tx, id);
  }

  /** Checks a login name (username or any email) and password; null when they do not match. */
  async authenticate(em: EntityManager, loginName: string, password: string): Promise<UserRecord | null> {
    const user = await this.findByEmail(em, loginName);
    if (!user?.passwordHash) return verifyAgainstDecoy(password).then(() => null);
    return (await verifyPassword(password, user.passwordHash)) ? user : null;
  }

  findById(em: EntityManager, id: string): Promise<UserRecord | null> {
    return findUserById(em, id);
  }

  findByEmail(em: EntityManager, email: string): Promise<UserRecord | null> {
    return findUserByEmail(em, email);
  }

  private async resolveId(scope: Scope, idOrEmail: string): Promise<string | null> {
    if (USER_ID_PATTERN.test(idOrEmail)) return idOrEmail;
    if (!idOrEmail.includes('@'))
      throw invalid(`userId "${idOrEmail}" is neither a user id nor an email address`, 'userId');
    return (await this.findByEmail(scope.em, idOrEmail))?.id ?? null;
  }

  /** Roles as the specification allows them: unique, `clinic` alone. */
  private checkRoles(requested: readonly string[]): string[] {
    const seen = new Set<string>();
    for (const role of requested) {
      if (seen.has(role)) throw invalid(`roles contains "${role}" more than once`, 'roles');
      if (!(ASSIGNABLE_ROLES as readonly string[]).includes(role)) {
        throw invalid(`roles contains "${role}"; the only assignable role is ${ASSIGNABLE_ROLES.join(', ')}`, 'roles');
      }
      seen.add(role);
    }
    return [...seen];
  }

  /**
   * An account for someone who proved an email address at a trusted identity provider: no
   * password, its username the email. A CONFLICT when an account already uses that email.
   */
  async provision(em: EntityManager, email: string, emailVerified: boolean): Promise<UserRecord> {
    assertEmail(email, 'email');
    return this.insert(em, { username: email, emails: [email], roles: [], emailVerified }, null);
  }

  /**
   * Inserts an account with a fresh id; `createdBy` is the acting user, if any. A sign-up
   * `takesCustodialAddresses`: see saveWithEmails.
   */
  async insert(
    em: EntityManager,
    fields: Pick<UserRecord, 'emails' | 'roles'> &
      Partial<Pick<UserRecord, 'username' | 'passwordHash' | 'emailVerified'>>,
    createdBy: string | null,
    options: { takesCustodialAddresses?: boolean } = {},
  ): Promise<UserRecord> {
    const user = newUser(em, {
      id: hexId(10),
      username: fields.username ?? null,
      emails: fields.emails,
      passwordHash: fields.passwordHash ?? null,
      roles: fields.roles,
      emailVerified: fields.emailVerified ?? false,
      termsAccepted: null,
      createdTime: new Date(),
      createdUserId: createdBy,
      modifiedTime: null,
      modifiedUserId: null,
    });
    await this.saveWithEmails(em, user, options.takesCustodialAddresses ?? false);
    return user;
  }

  /**
   * Writes the account and its login addresses in one transaction; a taken address is a 409.
   * When the account `takesCustodialAddresses` (a person signing up), an address its holder
   * yields (yieldsToSignUp: a custodial account's, or one its holder does not verify by) is
   * released to it instead: the holder keeps its data and custodians, and loses that address
   * from its username and emails.
   */
  private saveWithEmails(em: EntityManager, user: UserRecord, takesCustodialAddresses = false): Promise<void> {
    return saveUserWithEmails(em, user, (holder, email) => {
      if (!takesCustodialAddresses || !yieldsToSignUp(holder, email)) return null;
      this.willChange(holder.id);
      return releasing(holder, email);
    });
  }
}
