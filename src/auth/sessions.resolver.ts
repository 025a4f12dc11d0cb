import { CONFIRMATION_CREDENTIAL_FREE_MUTATIONS } from '../domains/confirmations/confirmations.resolver';
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Scope } from '../kernel/scope';
import { SignUpInput, User } from '../domains/users/user.types';
import { SessionsService, type Session as SessionRecord } from './sessions.service';
import {
  LogInInput,
  LogInPayload,
  LogOutPayload,
  RefreshSessionPayload,
  ServerLogInInput,
  ServerLogInPayload,
  Session,
  SignUpPayload,
  TokenInfo,
} from './sessions.types';

function session(record: SessionRecord): Session {
  const { token, expiresAt, isServer, subject: userId } = record;
  return Object.assign(new Session(), { token, expiresAt, isServer, userId });
}

/**
 * Mutations that do not act as the caller: /graphql and the REST routes that run only these
 * run them anonymously when the request's token is unusable.
 */
export const CREDENTIAL_FREE_MUTATIONS: ReadonlySet<string> = new Set([
  'signUp',
  'logIn',
  'serverLogIn',
  'logOut',
  ...CONFIRMATION_CREDENTIAL_FREE_MUTATIONS,
]);

@Resolver()
export class SessionsResolver {
  constructor(private readonly sessions: SessionsService) {}

  @Mutation(() => SignUpPayload, { description: 'Creates an account with a login and starts a session of it.' })
  async signUp(
    @Arg('input', () => SignUpInput, { description: 'The new account.' }) input: SignUpInput,
    @Ctx() scope: Scope,
  ): Promise<SignUpPayload> {
    const created = await this.sessions.signUp(scope, input);
    return Object.assign(new SignUpPayload(), {
      session: session(created.session),
      user: User.from(created.user, scope.principal),
    });
  }

  @Mutation(() => LogInPayload, {
    description: 'Legacy login with a username (or email address) and password; OIDC clients use the realm instead.',
  })
  async logIn(
    @Arg('input', () => LogInInput, { description: 'The credentials.' }) input: LogInInput,
    @Ctx() scope: Scope,
  ): Promise<LogInPayload> {
    const started = await this.sessions.logIn(scope, input.username, input.password);
    return Object.assign(new LogInPayload(), {
      session: session(started.session),
      user: User.from(started.user, scope.principal),
    });
  }

  @Mutation(() => ServerLogInPayload, {
    description: 'A server session for a backend service that knows the server secret.',
  })
  async serverLogIn(
    @Arg('input', () => ServerLogInInput, { description: 'The service name and the server secret.' })
    input: ServerLogInInput,
  ): Promise<ServerLogInPayload> {
    return Object.assign(new ServerLogInPayload(), {
      session: session(await this.sessions.serverLogIn(input.name, input.secret)),
    });
  }

  @Mutation(() => RefreshSessionPayload, {
    description: "A new token (and expiry) for the caller's legacy session; the old token stops working.",
  })
  async refreshSession(@Ctx() scope: Scope): Promise<RefreshSessionPayload> {
    return Object.assign(new RefreshSessionPayload(), {
      session: session(await this.sessions.refresh(scope.principal)),
    });
  }

  @Mutation(() => LogOutPayload, { description: "Ends the caller's session; succeeds even without one." })
  async logOut(@Ctx() scope: Scope): Promise<LogOutPayload> {
    await this.sessions.logOut(scope.principal);
    return Object.assign(new LogOutPayload(), { loggedOut: true });
  }

  @Query(() => TokenInfo, {
    description: "What the caller's token stands for, or (server tokens only) what another token stands for.",
  })
  async tokenInfo(
    @Arg('token', () => String, {
      nullable: true,
      description: 'Another token to inspect; only server tokens may ask. Omit it for the caller’s own.',
    })
    token: string | null,
    @Ctx() scope: Scope,
  ): Promise<TokenInfo> {
    return Object.assign(new TokenInfo(), await this.sessions.tokenInfo(scope, token));
  }
}
