import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { markVerified, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import type { TestApp } from '../support/app';
import { call } from '../support/http';
import { startMailingApp, type MailingApp } from '../support/invitations';
import type { TestSmtpServer } from '../support/smtp';

/**
 * An address only proves something once verified. A copy of it that another account merely
 * holds never keeps its owner from signing up (it is released to the sign-up), and where
 * another account signed up with it unverified, the owner of the mailbox claims it with a
 * password reset mailed there. An address an account verified stays its own.
 */
let mailing: MailingApp;
let smtp: TestSmtpServer;
let app: TestApp;
let server: string;

beforeAll(async () => {
  mailing = await startMailingApp();
  ({ app, smtp, server } = mailing);
}, 120_000);
afterAll(() => mailing?.stop());

const PASSWORD = 'the-real-person-1';
const signUpAs = (address: string) =>
  call(app.url, '/auth/user', { json: { username: address, emails: [address], password: PASSWORD } });
const login = (address: string, password: string) =>
  call(app.url, '/auth/login', {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${address}:${password}`).toString('base64')}` },
  });
const accountOf = async (account: TestAccount) =>
  (await call(app.url, `/auth/user/${account.userid}`, { token: server })).body;

describe('an address another account holds without having verified it', () => {
  it('typed in as an extra email, it is released to the person who signs up with it', async () => {
    const squatter = await signUp(app, 'squatter');
    const victim = uniqueEmail('victim');
    const added = await call(app.url, `/auth/user/${squatter.userid}`, {
      method: 'PUT',
      token: squatter.token,
      json: { updates: { emails: [squatter.email, victim], currentPassword: squatter.password } },
    });
    expect(added.status).toBe(200);

    const person = await signUpAs(victim);
    expect(person.status).toBe(201);
    expect((await login(victim, PASSWORD)).body.userid).toBe(person.body.userid);
    // The squatter keeps its own login, and only that.
    expect(await accountOf(squatter)).toMatchObject({ username: squatter.email, emails: [squatter.email] });
    expect((await login(squatter.email, squatter.password)).status).toBe(200);
  });

  it('signed up with, its mailbox’s owner claims it by a password reset mailed there', async () => {
    const victim = uniqueEmail('victim');
    const squatted = await signUpAs(victim);
    expect(squatted.status).toBe(201);
    // The sign-up itself is refused: the address is the squatting account's login...
    expect((await signUpAs(victim)).status).toBe(409);
    // ...but the reset goes to the mailbox, and whoever reads it takes the account and the address.
    expect((await call(app.url, `/confirm/send/forgot/${victim}`, { method: 'POST' })).status).toBe(200);
    let key: string | undefined;
    while (!key) {
      const mail = await smtp.nextMail(victim);
      key = /[?&]key=([A-Za-z0-9_-]{32})/.exec(mail.text ?? '')?.[1];
    }
    const reset = await call(app.url, '/confirm/accept/forgot', {
      method: 'PUT',
      json: { key, email: victim, password: 'the-owner-now-1' },
    });
    expect(reset.status).toBe(200);
    expect((await login(victim, PASSWORD)).status).toBe(401);
    const owner = await login(victim, 'the-owner-now-1');
    expect(owner.status).toBe(200);
    expect(owner.body.emailVerified).toBe(true);
  });
});

describe('an address an account verified', () => {
  it('stays taken: a sign-up with it is refused', async () => {
    const owner = await markVerified(app, server, await signUp(app, 'owner'));
    expect((await signUpAs(owner.email)).status).toBe(409);
    expect(await accountOf(owner)).toMatchObject({ username: owner.email, emailVerified: true });
  });
});
