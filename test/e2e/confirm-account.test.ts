import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ParsedMail } from 'mailparser';
import { signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call, graphql } from '../support/http';
import { expectMatchesTidepoolModel } from '../support/openapi';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';

/**
 * Sign-up verification and password reset through the running service and a real SMTP server:
 * the keys are read from the mails that arrive, as their owners would.
 */
let smtp: TestSmtpServer;
let app: TestApp;

beforeAll(async () => {
  smtp = await startSmtpServer();
  app = await startTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Islet <no-reply@islet.test>', MAIL_RETRY_MS: '50' });
});
afterAll(async () => {
  await app?.stop();
  await smtp?.close();
});

/** The key in a mail's link, checking the link leads to the realm's page for it. */
function keyIn(mail: ParsedMail, page: 'verify-email' | 'reset-password'): string {
  const link = new RegExp(`${app.url}/realms/dev1/login-actions/${page}\\?key=([A-Za-z0-9_-]{32})`).exec(
    mail.text ?? '',
  );
  expect(link).not.toBeNull();
  expect(mail.html).toContain(link![0]);
  return link![1]!;
}

const me = async (account: TestAccount) => (await call(app.url, '/auth/user', { token: account.token })).body;

async function signupKey(account: TestAccount): Promise<string> {
  const sent = await call(app.url, `/confirm/send/signup/${account.userid}`, { method: 'POST', token: account.token });
  expect(sent.status).toBe(200);
  return keyIn(await smtp.nextMail(account.email), 'verify-email');
}

async function resetKey(email: string): Promise<string> {
  expect((await call(app.url, `/confirm/send/forgot/${email}`, { method: 'POST' })).status).toBe(200);
  return keyIn(await smtp.nextMail(email), 'reset-password');
}

const acceptSignup = (key: string) => call(app.url, `/confirm/accept/signup/${key}`, { method: 'PUT' });
const acceptReset = (body: Record<string, unknown>) =>
  call(app.url, '/confirm/accept/forgot', { method: 'PUT', json: body });
const logIn = (email: string, password: string) =>
  call(app.url, '/auth/login', {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
  });
const expireKeysOf = (userId: string) =>
  app.database.query(`update confirmations set expires_at = now() - interval '1 second' where user_id = $1`, [userId]);

describe('sign-up verification', () => {
  it('mails the account a key; accepting it makes the account verified, once', async () => {
    const account = await signUp(app);
    expect((await me(account)).emailVerified).toBe(false);

    const sent = await call(app.url, `/confirm/send/signup/${account.userid}`, {
      method: 'POST',
      token: account.token,
    });
    expect(sent.status).toBe(200);
    await expectMatchesTidepoolModel(sent.body, 'confirm/models/confirmation.v1.yaml');
    expect(sent.body).toMatchObject({
      type: 'signup_confirmation',
      status: 'pending',
      email: account.email,
      creatorId: account.userid,
    });
    const mail = await smtp.nextMail(account.email);
    expect(mail.subject).toBe('Confirm your email address');
    expect(mail.from?.text).toContain('no-reply@islet.test');
    const key = keyIn(mail, 'verify-email');
    // The answer shows the confirmation's public id, never the key that confirms.
    expect(sent.body.key).not.toBe(key);

    expect((await acceptSignup(key)).status).toBe(200);
    expect((await me(account)).emailVerified).toBe(true);

    const again = await acceptSignup(key);
    expect(again.status).toBe(409);
    const resent = await call(app.url, `/confirm/send/signup/${account.userid}`, {
      method: 'POST',
      token: account.token,
    });
    expect(resent.status).toBe(409);
  });

  it('confirms through the page the mail links to: opening it changes nothing, its button confirms', async () => {
    const account = await signUp(app);
    await call(app.url, `/confirm/send/signup/${account.userid}`, { method: 'POST', token: account.token });
    const link = /https?:\/\/\S+verify-email\?key=\S+/.exec((await smtp.nextMail(account.email)).text ?? '')![0];
    const opened = await fetch(link);
    const form = await opened.text();
    expect(opened.status).toBe(200);
    expect((await me(account)).emailVerified).toBe(false);

    const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(form)![1]!;
    const submit = (csrf: string) =>
      fetch(new URL('/realms/dev1/login-actions/verify-email', app.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ key: hidden('key'), csrf }).toString(),
      });
    expect((await submit('forged')).status).toBe(403);
    expect((await me(account)).emailVerified).toBe(false);
    const confirmed = await submit(hidden('csrf'));
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Address confirmed');
    expect((await me(account)).emailVerified).toBe(true);
    expect((await submit(hidden('csrf'))).status).toBe(409);
  });

  it('is asked for by the account itself or a server; anyone else is refused', async () => {
    const [account, other] = await Promise.all([signUp(app), signUp(app)]);
    const path = `/confirm/send/signup/${account.userid}`;
    expect((await call(app.url, path, { method: 'POST', token: other.token })).status).toBe(403);
    expect((await call(app.url, path, { method: 'POST' })).status).toBe(401);
  });

  it('refuses an unknown key, a malformed one and a key of another flow alike (404)', async () => {
    const account = await signUp(app);
    const reset = await resetKey(account.email);
    const unknown = await acceptSignup('A'.repeat(32));
    expect(unknown.status).toBe(404);
    for (const key of [reset, 'short', `${reset}x`]) {
      const refused = await acceptSignup(key);
      expect({ status: refused.status, body: refused.body }).toEqual({ status: unknown.status, body: unknown.body });
    }
    expect((await me(account)).emailVerified).toBe(false);
    // The password-reset key still works for its own flow.
    expect((await acceptReset({ key: reset, email: account.email, password: 'new-password-1' })).status).toBe(200);
  });

  it('refuses an expired key (404); a resend by address mails a new key that works, the old one stays refused', async () => {
    const account = await signUp(app);
    const expired = await signupKey(account);
    await expireKeysOf(account.userid);
    expect((await acceptSignup(expired)).status).toBe(404);

    expect((await call(app.url, `/confirm/resend/signup/${account.email}`, { method: 'POST' })).status).toBe(200);
    const fresh = keyIn(await smtp.nextMail(account.email), 'verify-email');
    expect(fresh).not.toBe(expired);
    expect((await acceptSignup(expired)).status).toBe(409);
    expect((await acceptSignup(fresh)).status).toBe(200);
    expect((await me(account)).emailVerified).toBe(true);
  });

  it('answers a resend the same for an unknown address, mailing nothing', async () => {
    const nobody = uniqueEmail('nobody');
    const reply = await call(app.url, `/confirm/resend/signup/${nobody}`, { method: 'POST' });
    expect({ status: reply.status, text: reply.text }).toEqual({ status: 200, text: '' });
    expect(await app.database.query('select 1 from confirmations where email = $1', [nobody])).toEqual([]);
    expect((await call(app.url, '/confirm/resend/signup/not-an-address', { method: 'POST' })).status).toBe(400);
  });

  it('makes a changed address unverified until the mail to the new address is confirmed', async () => {
    const account = await signUp(app);
    expect((await acceptSignup(await signupKey(account))).status).toBe(200);

    const newEmail = uniqueEmail('moved');
    const changed = await call(app.url, `/auth/user/${account.userid}`, {
      method: 'PUT',
      token: account.token,
      json: { updates: { username: newEmail, emails: [newEmail], currentPassword: account.password } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.emailVerified).toBe(false);
    const key = keyIn(await smtp.nextMail(newEmail), 'verify-email');
    expect((await acceptSignup(key)).status).toBe(200);
    expect((await me(account)).emailVerified).toBe(true);
  });
});

describe('password reset', () => {
  it('answers the same for an address with and without an account, mailing only the account', async () => {
    const account = await signUp(app);
    const nobody = uniqueEmail('nobody');
    const known = await call(app.url, `/confirm/send/forgot/${account.email}`, { method: 'POST' });
    const unknown = await call(app.url, `/confirm/send/forgot/${nobody}`, { method: 'POST' });
    expect({ status: unknown.status, text: unknown.text }).toEqual({ status: known.status, text: known.text });
    expect(known.status).toBe(200);
    await smtp.nextMail(account.email);
    expect(await app.database.query('select 1 from outbound_mails where lower(recipient) = $1', [nobody])).toEqual([]);
    expect((await call(app.url, '/confirm/send/forgot/not-an-address', { method: 'POST' })).status).toBe(400);
  });

  it('sets the new password with the mailed key and address, ends every session, and works once', async () => {
    const account = await signUp(app);
    const key = await resetKey(account.email);

    const wrongAddress = await acceptReset({ key, email: uniqueEmail(), password: 'brand-new-pass' });
    expect(wrongAddress.status).toBe(404);
    expect((await acceptReset({ key, email: account.email, password: 'short' })).status).toBe(400);
    expect((await acceptReset({ key, email: account.email })).status).toBe(400);

    const reset = await acceptReset({ key, email: account.email.toUpperCase(), password: 'brand-new-pass' });
    expect(reset.status).toBe(200);
    expect((await call(app.url, '/auth/user', { token: account.token })).status).toBe(401);
    expect((await logIn(account.email, account.password)).status).toBe(401);
    const loggedIn = await logIn(account.email, 'brand-new-pass');
    expect(loggedIn.status).toBe(200);
    // The mailbox is proven: the account is verified by it.
    expect(loggedIn.body.emailVerified).toBe(true);

    expect((await acceptReset({ key, email: account.email, password: 'another-pass-2' })).status).toBe(409);
    expect((await logIn(account.email, 'brand-new-pass')).status).toBe(200);
  });

  it('refuses an expired key and a sign-up key (404); asking again after expiry mails a key that works', async () => {
    const account = await signUp(app);
    const signup = await signupKey(account);
    expect((await acceptReset({ key: signup, email: account.email, password: 'brand-new-pass' })).status).toBe(404);

    const expired = await resetKey(account.email);
    await expireKeysOf(account.userid);
    expect((await acceptReset({ key: expired, email: account.email, password: 'brand-new-pass' })).status).toBe(404);
    const fresh = await resetKey(account.email);
    expect((await acceptReset({ key: fresh, email: account.email, password: 'brand-new-pass' })).status).toBe(200);
    expect((await logIn(account.email, 'brand-new-pass')).status).toBe(200);
  });

  it('runs over GraphQL too', async () => {
    const account = await signUp(app);
    const asked = await graphql(app.url, 'mutation ($email: String!) { sendPasswordReset(email: $email) }', {
      email: account.email,
    });
    expect(asked.body).toEqual({ data: { sendPasswordReset: true } });
    const key = keyIn(await smtp.nextMail(account.email), 'reset-password');
    const reset = await graphql(app.url, 'mutation ($input: ResetPasswordInput!) { resetPassword(input: $input) }', {
      input: { key, email: account.email, password: 'graphql-pass-1' },
    });
    expect(reset.body).toEqual({ data: { resetPassword: true } });
    const used = await graphql(app.url, 'mutation ($input: ResetPasswordInput!) { resetPassword(input: $input) }', {
      input: { key, email: account.email, password: 'graphql-pass-2' },
    });
    expect(used.body.errors[0].extensions.code).toBe('CONFLICT');
  });
});
