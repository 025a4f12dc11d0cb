import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Storage of an account. The GraphQL `User` type in user.types.ts is the wire contract. */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.string().primary().length(10),
    username: p.text().nullable(),
    emails: p.array().columnType('text[]').default([]),
    passwordHash: p.text().nullable(),
    roles: p.array().columnType('text[]').default([]),
    emailVerified: p.boolean().default(false),
    termsAccepted: p.datetime().nullable(),
    createdTime: p.datetime(),
    createdUserId: p.string().length(10).nullable(),
    modifiedTime: p.datetime().nullable(),
    modifiedUserId: p.string().length(10).nullable(),
  },
});

export type UserRecord = InferEntity<typeof UserSchema>;

/**
 * Every address an account can log in with (its username and its emails), lower-cased. The
 * primary key makes "an email belongs to one account" a database rule, not a race. `addedTime`:
 * when the address became this account's (what it may claim by it depends on that, until
 * addresses are verified: clinician invitations sent before).
 */
export const UserEmailSchema = defineEntity({
  name: 'UserEmail',
  tableName: 'user_emails',
  properties: {
    email: p.text().primary(),
    user: () => p.manyToOne(UserSchema).deleteRule('cascade').index(),
    addedTime: p.datetime(),
  },
});

export type UserEmailRecord = InferEntity<typeof UserEmailSchema>;
