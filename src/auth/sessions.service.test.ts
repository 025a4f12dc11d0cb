import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_SERVER,
  asUser,
  outcomeOf,
  SERVER_SECRET,
  startDomainWorld,
  type DomainWorld,
} from '../../test/support/domain-services';
import { hexId } from '../kernel/ids';
import { ANONYMOUS, type Principal } from '../kernel/principal';
import { hashPassword } from '../domains/users/password-hash';
import { SERVER_CLIENT_ID } from './oidc/clients';
import type { SessionsService } from './sessions.service';

const PASSWORD = 'correct-horse-battery';

let world: DomainWorld;
let sessions: SessionsService;
let passwordHash: string;

beforeAll(async () => {
  world = await startDomainWorld();
  sessions = world.services.sessions;
  passwordHash = await hashPassword(PASSWORD);
});
afterAll(() => world?.stop());

/** Who a token says its bearer is, as the edge decides it for each request. */
const bearerOf = (token: string) => world.services.authenticator.principal({ 'x-tidepool-session-token': token });
const serverPrincipal = async () => bearerOf((await sessions.serverLogIn('shoreline', SERVER_SECRET)).token);
const fromSource = (remoteAddress: string) => ({ ...world.scope(ANONYMOUS), remoteAddress });
const member = async () => {
  const email = `${hexId(8)}@example.org`;
  return { email, id: await world.account({ email, passwordHash }) };
};

describe('logging in', () => {
  it('with a login name (any case) and its password opens a session whose token stands for the account', async () => {
    const { email, id } = await member();
    const { session, user } = await sessions.logIn(fromSource('198.51.100.1'), email.toUpperCase(), PASSWORD);
    expect(user.id).toBe(id);
    expect(session).toMatchObject({ subject: id, isServer: false });
    expect(session.expiresAt.getTime()).toBeGreaterThan(Date.now());
    expect(await bearerOf(session.token)).toMatchObject({ userId: id, isServer: false, realm: 'dev1' });
  });

  it('a wrong password, an unknown name or an account without a password is UNAUTHENTICATED; a missing one INVALID', async () => {
    const { email } = await member();
    const passwordless = `${hexId(8)}@example.org`;
    await world.account({ email: passwordless });
    const scope = fromSource('198.51.100.2');
    expect(await outcomeOf(sessions.logIn(scope, email, 'wrong password'))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(sessions.logIn(scope, 'nobody@example.org', PASSWORD))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(sessions.logIn(scope, passwordless, PASSWORD))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(sessions.logIn(scope, email, ''))).toBe('INVALID');
    expect(await outcomeOf(sessions.logIn(scope, '', PASSWORD))).toBe('INVALID');
  });

  it('after five wrong guesses from one place, even the right password fails there, but not from elsewhere', async () => {
    const { email } = await member();
    const attacker = fromSource('203.0.113.66');
    for (let guess = 0; guess < 5; guess += 1)
      expect(await outcomeOf(sessions.logIn(attacker, email, `guess ${guess}`))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(sessions.logIn(fromSource('203.0.113.66'), email, PASSWORD))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(sessions.logIn(fromSource('198.51.100.3'), email, PASSWORD))).toBe('ok');
  });

  it('signing up opens a session for the new account at once', async () => {
    const username = `${hexId(8)}@example.org`;
    const { session, user } = await sessions.signUp(world.scope(ANONYMOUS), {
      username,
      emails: [username],
      password: PASSWORD,
    });
    expect(await bearerOf(session.token)).toMatchObject({ userId: user.id });
  });
});

describe('a session’s life', () => {
  const open = async () => {
    const { id } = await member();
    const session = await sessions.open(id);
    return { id, session, principal: await bearerOf(session.token) };
  };

  it('refreshing gives a new token of the same session and account', async () => {
    const { id, session, principal } = await open();
    const renewed = await sessions.refresh(principal);
    expect(renewed.token).not.toBe(session.token);
    expect(await bearerOf(renewed.token)).toMatchObject({ userId: id, grantId: principal.grantId });
  });

  it('logging out ends the session: its tokens stop working and it cannot be refreshed', async () => {
    const { session, principal } = await open();
    await sessions.logOut(principal);
    expect(await outcomeOf(bearerOf(session.token))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(sessions.refresh(principal))).toBe('UNAUTHENTICATED');
  });

  it('logging out without a session succeeds; refreshing without one is UNAUTHENTICATED', async () => {
    expect(await outcomeOf(sessions.logOut(ANONYMOUS))).toBe('ok');
    expect(await outcomeOf(sessions.refresh(ANONYMOUS))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(sessions.refresh(AS_SERVER))).toBe('UNAUTHENTICATED');
  });

  it('an account’s deletion ends every session it has', async () => {
    const { id, session } = await open();
    const other = await sessions.open(id);
    await sessions.endAllSessionsOf(id);
    for (const token of [session.token, other.token]) expect(await outcomeOf(bearerOf(token))).toBe('UNAUTHENTICATED');
  });

  it('a password change by the account ends its other sessions and keeps the one that made it', async () => {
    const { id, session, principal } = await open();
    const other = await sessions.open(id);
    await sessions.endOtherSessionsOf(id, principal);
    expect(await outcomeOf(bearerOf(session.token))).toBe('ok');
    expect(await outcomeOf(bearerOf(other.token))).toBe('UNAUTHENTICATED');
  });

  it('a password change by someone else (a server) ends every session of the account', async () => {
    const { id, session } = await open();
    await sessions.endOtherSessionsOf(id, AS_SERVER);
    expect(await outcomeOf(bearerOf(session.token))).toBe('UNAUTHENTICATED');
  });
});

describe('server sessions', () => {
  it('the server secret opens a server session trusted by every access rule', async () => {
    const session = await sessions.serverLogIn('shoreline', SERVER_SECRET);
    expect(session).toMatchObject({ subject: SERVER_CLIENT_ID, isServer: true });
    expect(await bearerOf(session.token)).toMatchObject({ isServer: true, userId: null });
  });

  it('a wrong secret is UNAUTHENTICATED; a missing name or secret INVALID', async () => {
    expect(await outcomeOf(sessions.serverLogIn('shoreline', 'not the secret'))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(sessions.serverLogIn('', 'x'))).toBe('INVALID');
    expect(await outcomeOf(sessions.serverLogIn('shoreline', ''))).toBe('INVALID');
  });
});

describe('what a token stands for', () => {
  const scopeOf = (principal: Principal) => world.scope(principal);

  it('a caller learns about its own token; an anonymous caller has none', async () => {
    const { id } = await member();
    const principal = await bearerOf((await sessions.open(id)).token);
    expect(await sessions.tokenInfo(scopeOf(principal))).toMatchObject({ userId: id, isServer: false });
    expect(await outcomeOf(sessions.tokenInfo(scopeOf(ANONYMOUS)))).toBe('UNAUTHENTICATED');
  });

  it('only a server may ask about another token', async () => {
    const [{ id }, { id: nosy }] = [await member(), await member()];
    const token = (await sessions.open(id)).token;
    const server = await serverPrincipal();
    expect(await sessions.tokenInfo(scopeOf(server), token)).toMatchObject({ userId: id, isServer: false });
    const user = await bearerOf((await sessions.open(nosy)).token);
    expect(await outcomeOf(sessions.tokenInfo(scopeOf(user), token))).toBe('FORBIDDEN');
    expect(await outcomeOf(sessions.tokenInfo(scopeOf(asUser(nosy)), 'not a token'))).toBe('FORBIDDEN');
  });

  it('a server asking about a token that is no good is told it is UNAUTHENTICATED', async () => {
    const server = await serverPrincipal();
    expect(await outcomeOf(sessions.tokenInfo(scopeOf(server), 'not a token'))).toBe('UNAUTHENTICATED');
  });
});
