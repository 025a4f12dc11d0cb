import { Field, ID, InputType, ObjectType } from 'type-graphql';
import type { Principal } from '../../kernel/principal';
import type { UserRecord } from './user.entity';

@ObjectType({ description: 'An account. Custodial accounts have no username and no password.' })
export class User {
  @Field(() => ID)
  userid!: string;

  @Field(() => String, { nullable: true })
  username!: string | null;

  @Field(() => [String])
  emails!: string[];

  @Field(() => [String])
  roles!: string[];

  @Field()
  emailVerified!: boolean;

  @Field(() => Date, { nullable: true })
  termsAccepted!: Date | null;

  @Field(() => Date)
  createdTime!: Date;

  @Field(() => String, { nullable: true })
  createdUserId!: string | null;

  @Field(() => Date, { nullable: true })
  modifiedTime!: Date | null;

  @Field(() => String, { nullable: true })
  modifiedUserId!: string | null;

  @Field(() => Boolean, { nullable: true, description: 'Whether a password is set; shown to server tokens only.' })
  passwordExists!: boolean | null;

  static from(record: UserRecord, viewer: Principal): User {
    return Object.assign(new User(), {
      userid: record.id,
      username: record.username ?? null,
      emails: record.emails,
      roles: record.roles,
      emailVerified: record.emailVerified,
      termsAccepted: record.termsAccepted ?? null,
      createdTime: record.createdTime,
      createdUserId: record.createdUserId ?? null,
      modifiedTime: record.modifiedTime ?? null,
      modifiedUserId: record.modifiedUserId ?? null,
      passwordExists: viewer.isServer ? record.passwordHash !== null : null,
    });
  }
}

@InputType({ description: 'Fields to change; omitted fields stay as they are.' })
export class UserUpdateInput {
  @Field(() => String, { nullable: true })
  username?: string | null;

  @Field(() => [String], { nullable: true })
  emails?: string[] | null;

  @Field(() => String, { nullable: true, description: 'New password (8 to 72 characters, no whitespace).' })
  password?: string | null;

  @Field(() => Date, { nullable: true })
  termsAccepted?: Date | null;

  @Field(() => [String], { nullable: true, description: 'Changing roles needs a server token.' })
  roles?: string[] | null;

  @Field(() => Boolean, { nullable: true, description: 'Changing it needs a server token.' })
  emailVerified?: boolean | null;

  @Field(() => String, {
    nullable: true,
    description:
      "The caller's current password: required to change password, username or emails, except for server tokens and custodians of custodial accounts.",
  })
  currentPassword?: string | null;
}

@InputType()
export class SignUpInput {
  @Field()
  username!: string;

  @Field(() => [String])
  emails!: string[];

  @Field()
  password!: string;

  @Field(() => [String], { nullable: true })
  roles?: string[] | null;
}

@InputType()
export class CustodialUserInput {
  @Field(() => String, { nullable: true })
  username?: string | null;

  @Field(() => [String], { nullable: true })
  emails?: string[] | null;
}
