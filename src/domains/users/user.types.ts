import { Directive, Field, ID, InputType, ObjectType } from 'type-graphql';
import type { Principal } from '../../kernel/principal';
import type { UserRecord } from './user.entity';

// Plain data read as properties (simpleResolvers, see src/graphql/connection.ts).
@ObjectType({
  simpleResolvers: true,
  description:
    'An account: a person who signs in, or a custodial account (no username, no password) that a custodian manages for someone, such as a child.',
})
// A federation entity: other subgraphs reference it by `userId` (src/graphql/federation.ts).
@Directive('@key(fields: "userId")')
export class User {
  @Field(() => ID, { description: 'The account id: 10 or more lowercase hexadecimal characters, fixed for life.' })
  userId!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The login name, an email address; null for custodial accounts.',
  })
  username!: string | null;

  @Field(() => [String], { description: 'The email addresses of the account, the login name first; may be empty.' })
  emails!: string[];

  @Field(() => [String], { description: 'Roles of the account; `clinic` is the only one today. Usually empty.' })
  roles!: string[];

  @Field({ description: 'Whether the account owner confirmed their email address.' })
  emailVerified!: boolean;

  @Field(() => Date, {
    nullable: true,
    description: 'When the owner accepted the terms of use; null until they do.',
  })
  termsAccepted!: Date | null;

  @Field(() => Date, { description: 'When the account was created.' })
  createdTime!: Date;

  @Field(() => String, {
    nullable: true,
    description: 'Who created the account (the custodian of a custodial account); null when it signed itself up.',
  })
  createdUserId!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the account last changed; null if never.' })
  modifiedTime!: Date | null;

  @Field(() => String, { nullable: true, description: 'Who last changed the account; null if never changed.' })
  modifiedUserId!: string | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Whether the account has a password. Shown to backend services (server tokens) only, null to others.',
  })
  hasPassword!: boolean | null;

  static from(record: UserRecord, viewer: Principal): User {
    return Object.assign(new User(), {
      userId: record.id,
      username: record.username ?? null,
      emails: record.emails,
      roles: record.roles,
      emailVerified: record.emailVerified,
      termsAccepted: record.termsAccepted ?? null,
      createdTime: record.createdTime,
      createdUserId: record.createdUserId ?? null,
      modifiedTime: record.modifiedTime ?? null,
      modifiedUserId: record.modifiedUserId ?? null,
      hasPassword: viewer.isServer ? record.passwordHash !== null : null,
    });
  }
}

@InputType({ description: "Changes to the caller's own account; omitted fields stay as they are." })
export class UpdateMeInput {
  @Field(() => String, {
    nullable: true,
    description: 'New login name, an email address. Needs `currentPassword`.',
  })
  username?: string | null;

  @Field(() => [String], {
    nullable: true,
    description: 'The new list of email addresses (at most 100). Needs `currentPassword`.',
  })
  emails?: string[] | null;

  @Field(() => String, {
    nullable: true,
    description: 'New password: 8 to 72 characters, no whitespace. Needs `currentPassword`; ends other sessions.',
  })
  password?: string | null;

  @Field(() => Date, { nullable: true, description: 'When the owner accepted the terms of use.' })
  termsAccepted?: Date | null;

  @Field(() => [String], {
    nullable: true,
    description: 'New roles (`clinic` is the only one); changing them needs a server token.',
  })
  roles?: string[] | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'Marks the email address verified or not; changing it needs a server token.',
  })
  emailVerified?: boolean | null;

  @Field(() => String, {
    nullable: true,
    description:
      "The caller's current password: required to change password, username or emails, except for server tokens and custodians of custodial accounts.",
  })
  currentPassword?: string | null;
}

@InputType({ description: 'Changes to an account; omitted fields stay as they are.' })
export class UpdateUserInput extends UpdateMeInput {
  @Field(() => ID, {
    description: 'The account to change: the caller itself, an account it is custodian of, or any with a server token.',
  })
  userId!: string;
}

@ObjectType({ description: 'The result of `updateMe`.' })
export class UpdateMePayload {
  @Field(() => User, { description: 'The account as it is after the change.' })
  user!: User;
}

@ObjectType({ description: 'The result of `updateUser`.' })
export class UpdateUserPayload {
  @Field(() => User, { description: 'The account as it is after the change.' })
  user!: User;
}

@InputType({ description: 'A new account with a login.' })
export class SignUpInput {
  @Field({ description: 'The login name: an email address.' })
  username!: string;

  @Field(() => [String], { description: 'Email addresses of the account (1 to 100), usually the username.' })
  emails!: string[];

  @Field({ description: 'The password: 8 to 72 characters, no whitespace.' })
  password!: string;

  @Field(() => [String], { nullable: true, description: 'Roles to hold: `clinic` or none.' })
  roles?: string[] | null;
}

@InputType({ description: 'An account without a login, managed by a custodian.' })
export class CreateCustodialUserInput {
  @Field(() => ID, {
    description:
      'The custodian: the caller itself (or any account, with a server token). It gets custodian, view and upload.',
  })
  custodianId!: string;

  @Field(() => String, { nullable: true, description: 'An optional login name (an email address); usually omitted.' })
  username?: string | null;

  @Field(() => [String], { nullable: true, description: 'Optional email addresses (at most 100).' })
  emails?: string[] | null;
}

@ObjectType({ description: 'The result of `createCustodialUser`.' })
export class CreateCustodialUserPayload {
  @Field(() => User, { description: 'The new account.' })
  user!: User;
}

@InputType({ description: 'The account to delete.' })
export class DeleteUserInput {
  @Field(() => ID, {
    description: 'The account: the caller itself, one it is custodian of, or any with a server token.',
  })
  userId!: string;

  @Field(() => String, {
    nullable: true,
    description: "The account's current password, required when an owner deletes its own account.",
  })
  password?: string | null;
}

@ObjectType({ description: 'The result of `deleteUser`.' })
export class DeleteUserPayload {
  @Field(() => ID, { description: 'The id of the account that no longer exists, with everything it held.' })
  deletedUserId!: string;
}
