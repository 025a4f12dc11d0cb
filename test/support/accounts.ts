import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import { call } from './http';
import type { TestApp } from './app';

export interface TestAccount {
  userid: string;
  email: string;
  password: string;
  token: string;
}

export const uniqueEmail = (prefix = 'user') => `${prefix}.${randomBytes(4).toString('hex')}@example.org`;

/** Signs up a fresh account through the legacy REST API and returns its session token. */
export async function signUp(app: Pick<TestApp, 'url'>, prefix = 'user'): Promise<TestAccount> {
  const email = uniqueEmail(prefix);
  const password = `pw-${randomBytes(6).toString('hex')}`;
  const reply = await call(app.url, '/auth/user', { json: { username: email, emails: [email], password } });
  expect(reply.status).toBe(201);
  return { userid: reply.body.userid, email, password, token: reply.headers.get('x-tidepool-session-token')! };
}

export async function serverToken(app: TestApp): Promise<string> {
  const reply = await call(app.url, '/auth/serverlogin', {
    method: 'POST',
    headers: { 'x-tidepool-server-name': 'tests', 'x-tidepool-server-secret': app.serverSecret },
  });
  expect(reply.status).toBe(200);
  return reply.headers.get('x-tidepool-session-token')!;
}

/** Password grant at a realm's token endpoint with the development client. */
export async function passwordGrant(
  app: TestApp,
  realm: string,
  username: string,
  password: string,
  extra: Record<string, string> = {},
) {
  return call(app.url, `/realms/${realm}/protocol/openid-connect/token`, {
    form: {
      grant_type: 'password',
      client_id: 'islet-dev',
      client_secret: app.devClientSecret,
      username,
      password,
      ...extra,
    },
  });
}

/**
 * A server marks the account's address verified, as an accepted sign-up confirmation does (for
 * tests about what verification allows, not about how it is done: see confirm-account.test.ts).
 */
export async function markVerified(app: Pick<TestApp, 'url'>, server: string, account: TestAccount) {
  const reply = await call(app.url, `/auth/user/${account.userid}`, {
    method: 'PUT',
    token: server,
    json: { updates: { emailVerified: true } },
  });
  expect(reply.status).toBe(200);
  return account;
}
