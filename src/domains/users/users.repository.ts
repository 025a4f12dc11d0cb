import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { columnsOf, sqlOf } from '../../infra/database/sql-runner';
import { conflict } from '../../kernel/errors';
import { UserEmailSchema, UserSchema, type UserRecord } from './user.entity';

/**
 * Every read and write of the users domain's tables (`users`, `user_emails`). The service holds
 * the rules; this holds the statements.
 */

interface UserRow {
  id: string;
  username: string | null;
  emails: string[];
  password_hash: string | null;
  roles: string[];
  email_verified: boolean;
  terms_accepted: Date | null;
  created_time: Date;
  created_user_id: string | null;
  modified_time: Date | null;
  modified_user_id: string | null;
}

/**
 * A row as a plain snapshot. Reads are the hot path (every authenticated call reads its caller),
 * and a managed entity costs as much as the query itself; `UsersService.update` makes the one it
 * changes managed.
 */
function toUserRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    username: row.username,
    emails: row.emails,
    passwordHash: row.password_hash,
    roles: row.roles,
    emailVerified: row.email_verified,
    termsAccepted: row.terms_accepted,
    createdTime: row.created_time,
    createdUserId: row.created_user_id,
    modifiedTime: row.modified_time,
    modifiedUserId: row.modified_user_id,
  };
}

/** Accounts by id as plain snapshots, in one SELECT (prepared: every authenticated request reads its caller). */
export async function usersByIds(em: EntityManager, ids: readonly string[]): Promise<Map<string, UserRecord>> {
  const rows = await sqlOf(em).reusable<UserRow>(
    'users_by_ids',
    `select ${columnsOf(em, UserSchema, 'u')} from users u where u.id = any($1::text[])`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, toUserRecord(row)]));
}

export function findUserById(em: EntityManager, id: string): Promise<UserRecord | null> {
  return em.findOne(UserSchema, { id });
}

/** The account one of whose login addresses is `email` (any case). */
export async function findUserByEmail(em: EntityManager, email: string): Promise<UserRecord | null> {
  const row = await em.findOne(UserEmailSchema, { email: email.toLowerCase() }, { populate: ['user'] });
  return row ? (row.user as unknown as UserRecord) : null;
}

/** The account's login addresses with when each became its own, oldest first. */
export async function addressesOf(em: EntityManager, userId: string): Promise<{ email: string; addedTime: Date }[]> {
  const rows = await em.find(UserEmailSchema, { user: userId }, { orderBy: { addedTime: 'asc', email: 'asc' } });
  return rows.map(({ email, addedTime }) => ({ email, addedTime }));
}

/** Which of `ids` are accounts. */
export async function existingUserIds(em: EntityManager, ids: readonly string[]): Promise<Set<string>> {
  const rows = await em.find(UserSchema, { id: { $in: [...ids] } }, { fields: ['id'], disableIdentityMap: true });
  return new Set(rows.map((row) => row.id));
}

/** Whether the account exists, holding its row (FOR SHARE) until `tx` ends. */
export async function holdUser(tx: EntityManager, id: string): Promise<boolean> {
  const rows = await tx.find(UserSchema, { id }, { fields: ['id'], lockMode: LockMode.PESSIMISTIC_READ });
  return rows.length === 1;
}

export async function updateUser(tx: EntityManager, id: string, fields: Partial<UserRecord>): Promise<void> {
  await tx.nativeUpdate(UserSchema, { id }, fields);
}

export async function deleteUser(tx: EntityManager, id: string): Promise<void> {
  await tx.nativeDelete(UserSchema, { id });
}

/** A new account, not yet written (see saveUserWithEmails). */
export const newUser = (em: EntityManager, fields: UserRecord): UserRecord =>
  em.create(UserSchema, fields, { persist: false });

/** The account as a managed entity, so that saveUserWithEmails writes its changes. */
export const managedUser = (em: EntityManager, user: UserRecord): UserRecord => em.merge(UserSchema, user);

/**
 * What happens to a login address another account holds: `release` gives the changes that
 * account takes on losing it, or null when it keeps it (and the save is a 409).
 */
export type AddressClaim = (holder: UserRecord, email: string) => Partial<UserRecord> | null;

/**
 * Writes the account and its login addresses in one transaction: addresses it no longer has are
 * removed, new ones added; one another account holds is taken from it when `claim` says so,
 * else the save is a 409 naming it.
 */
export async function saveUserWithEmails(em: EntityManager, user: UserRecord, claim: AddressClaim): Promise<void> {
  const addresses = [
    ...new Set([user.username, ...user.emails].filter((v): v is string => !!v).map((v) => v.toLowerCase())),
  ];
  try {
    await em.transactional(async (tx) => {
      tx.persist(user);
      await tx.flush();
      await tx.nativeDelete(UserEmailSchema, { user: user.id, email: { $nin: addresses } });
      // Locked: two sign-ups taking the same custodial address one after the other, the second
      // finds it already taken by the first, not still the custodial account's.
      const existing = await tx.find(
        UserEmailSchema,
        { email: { $in: addresses } },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      const holderOf = (row: (typeof existing)[number]) => row.user as unknown as UserRecord;
      const others = existing.filter((row) => holderOf(row).id !== user.id);
      // The holders' records, into the identity map where the rows' references point.
      if (others.length) await tx.find(UserSchema, { id: { $in: others.map((row) => holderOf(row).id) } });
      const addedTime = new Date();
      for (const row of others) {
        const holder = holderOf(row);
        const released = claim(holder, row.email);
        if (!released) throw conflict(`${row.email} is already used by another account`);
        Object.assign(holder, released, { modifiedTime: addedTime, modifiedUserId: null });
        tx.assign(row, { user: user.id, addedTime });
      }
      const known = new Set(existing.map((row) => row.email));
      for (const email of addresses)
        if (!known.has(email)) tx.create(UserEmailSchema, { email, user: user.id, addedTime });
      await tx.flush();
    });
  } catch (error) {
    // Two requests claiming the same address at once: the primary key decides.
    if (error instanceof UniqueConstraintViolationException) {
      throw conflict('That email address is already used by another account');
    }
    throw error;
  }
}
