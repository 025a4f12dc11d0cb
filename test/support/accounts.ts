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

/**
 * `count` accounts written straight into the app's database as a sign-up leaves them (an address,
 * no session), each sharing `permissions` with `granteeId` when given: for tests that need many
 * accounts present but sign none of them in, where `count` sign-ups over HTTP would be most of
 * the test's time. Returns their ids, in order.
 */
export async function insertAccounts(
  app: Pick<TestApp, 'database'>,
  count: number,
  prefix = 'user',
  share?: { granteeId: string; permissions: readonly string[] },
): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomBytes(5).toString('hex'));
  const emails = ids.map(() => uniqueEmail(prefix));
  await app.database.query(
    `with accounts as (select * from unnest($1::text[], $2::text[]) as a(id, email)),
       users as (insert into users (id, username, emails, roles, email_verified, created_time)
                 select id, email, array[email], '{}', false, now() from accounts),
       addresses as (insert into user_emails (email, user_id, added_time) select email, id, now() from accounts)
     insert into permission_grants (sharer_id, grantee_id, permissions, created_time, modified_time)
     select id, $3::text, $4::text[], now(), now() from accounts where $3::text is not null`,
    [ids, emails, share?.granteeId ?? null, share?.permissions ?? []],
  );
  return ids;
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
