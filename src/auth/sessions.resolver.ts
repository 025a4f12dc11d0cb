import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Scope } from '../kernel/scope';
import { SignUpInput, User } from '../domains/users/user.types';
import { SessionsService, type Session } from './sessions.service';
import { SessionPayload, TokenInfo } from './sessions.types';

function payload(session: Session, user: User | null): SessionPayload {
  const { token, expiresAt, isServer, subject: userid } = session;
  return Object.assign(new SessionPayload(), { token, expiresAt, isServer, userid, user });
}

/**
 * Mutations that do not act as the caller: /graphql and the REST routes that run only these
 * run them anonymously when the request's token is unusable.
 */
export const CREDENTIAL_FREE_MUTATIONS: ReadonlySet<string> = new Set(['signUp', 'logIn', 'serverLogIn', 'logOut']);

@Resolver()
export class SessionsResolver {
  constructor(private readonly sessions: SessionsService) {}

  @Mutation(() => SessionPayload, { description: 'Creates an account and logs it in.' })
  async signUp(@Arg('input') input: SignUpInput, @Ctx() scope: Scope): Promise<SessionPayload> {
    const { session, user } = await this.sessions.signUp(scope, input);
    return payload(session, User.from(user, scope.principal));
  }

  @Mutation(() => SessionPayload, { description: 'Legacy login with a username (or email) and password.' })
  async logIn(
    @Arg('username') username: string,
    @Arg('password') password: string,
    @Ctx() scope: Scope,
  ): Promise<SessionPayload> {
    const { session, user } = await this.sessions.logIn(scope, username, password);
    return payload(session, User.from(user, scope.principal));
  }

  @Mutation(() => SessionPayload, { description: 'A server token for a backend service that knows the server secret.' })
  async serverLogIn(@Arg('name') name: string, @Arg('secret') secret: string): Promise<SessionPayload> {
    return payload(await this.sessions.serverLogIn(name, secret), null);
  }

  @Mutation(() => SessionPayload, { description: "A new token for the caller's session." })
  async refreshSession(@Ctx() scope: Scope): Promise<SessionPayload> {
    return payload(await this.sessions.refresh(scope.principal), null);
  }

  @Mutation(() => Boolean, { description: "Ends the caller's session; true even without one." })
  async logOut(@Ctx() scope: Scope): Promise<boolean> {
    await this.sessions.logOut(scope.principal);
    return true;
  }

  @Query(() => TokenInfo, { description: "The caller's token, or (server tokens only) another one." })
  async tokenInfo(
    @Arg('token', () => String, { nullable: true }) token: string | null,
    @Ctx() scope: Scope,
  ): Promise<TokenInfo> {
    return Object.assign(new TokenInfo(), await this.sessions.tokenInfo(scope, token));
  }
}
