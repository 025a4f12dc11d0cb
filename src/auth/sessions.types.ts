import { Field, ID, InputType, ObjectType } from 'type-graphql';
import { User } from '../domains/users/user.types';

@ObjectType({ description: 'A session: an access token and whom it stands for.' })
export class Session {
  @Field({
    description:
      'The access token: send it as `Authorization: Bearer <token>` (or the legacy `X-Tidepool-Session-Token` header).',
  })
  token!: string;

  @Field(() => Date, { description: 'When the token stops working; refresh it before then.' })
  expiresAt!: Date;

  @Field(() => ID, { description: 'The account the session acts as, or the client name of a server session.' })
  userId!: string;

  @Field({ description: 'Whether this is a server session (a backend service), which may act on any account.' })
  isServer!: boolean;
}

@ObjectType({ description: 'The result of `signUp`.' })
export class SignUpPayload {
  @Field(() => Session, { description: 'A session of the new account.' })
  session!: Session;

  @Field(() => User, { description: 'The new account.' })
  user!: User;
}

@ObjectType({ description: 'The result of `logIn`.' })
export class LogInPayload {
  @Field(() => Session, { description: 'The new session.' })
  session!: Session;

  @Field(() => User, { description: 'The account that logged in.' })
  user!: User;
}

@ObjectType({ description: 'The result of `serverLogIn`.' })
export class ServerLogInPayload {
  @Field(() => Session, { description: 'The new server session.' })
  session!: Session;
}

@ObjectType({ description: 'The result of `refreshSession`.' })
export class RefreshSessionPayload {
  @Field(() => Session, { description: 'The session with a new token and expiry.' })
  session!: Session;
}

@ObjectType({ description: 'The result of `logOut`.' })
export class LogOutPayload {
  @Field({ description: 'Always true: after the call the caller has no session, whether it had one or not.' })
  loggedOut!: boolean;
}

@InputType({ description: 'Legacy login credentials.' })
export class LogInInput {
  @Field({ description: 'The login name, or one of the account’s email addresses.' })
  username!: string;

  @Field({ description: 'The account password.' })
  password!: string;
}

@InputType({ description: 'The credentials of a backend service.' })
export class ServerLogInInput {
  @Field({ description: 'The name of the backend service, for the logs.' })
  name!: string;

  @Field({ description: 'The server secret shared with backend services.' })
  secret!: string;
}

@ObjectType({ description: 'What an access token stands for.' })
export class TokenInfo {
  @Field(() => ID, { description: 'The account the token acts as, or the client name of a server token.' })
  userId!: string;

  @Field({ description: 'Whether it is a server token (a backend service).' })
  isServer!: boolean;

  @Field(() => Date, { description: 'When the token stops working.' })
  expiresAt!: Date;
}
