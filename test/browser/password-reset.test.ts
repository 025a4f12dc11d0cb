import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { describeWithBrowser, launchChromium } from '../support/chromium';
import { client, relyingParty } from '../support/relying-party';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';

describeWithBrowser('"Forgot password?" in Chromium', () => {
  let smtp: TestSmtpServer;
  let app: TestApp;
  let browser: Browser;
  let callback: http.Server;
  let redirectUri: string;
  let account: TestAccount;
  let rp: client.Configuration;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    app = await startTestApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Islet <no-reply@islet.test>', MAIL_RETRY_MS: '50' });
    account = await signUp(app, 'forgetful');
    rp = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    callback = http.createServer((_req, res) => res.end('signed in'));
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/app/callback`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await app?.stop();
    await smtp?.close();
  });

  async function startLogin(page: Page): Promise<string> {
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: redirectUri,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'xyz',
    });
    await page.goto(url.href);
    return verifier;
  }

  async function signIn(page: Page, password: string) {
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('goes from the login page through the mailed link to a new password, then signs in with it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await startLogin(page);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByLabel('Email').fill(account.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Check your mail');

    const mail = await smtp.nextMail(account.email);
    const link = /https?:\/\/\S+\/login-actions\/reset-password\?key=[A-Za-z0-9_-]{32}/.exec(mail.text ?? '')![0];
    // The link may be opened anywhere, as from a mail client: a fresh browser context.
    const mailbox = await browser.newContext();
    const linkPage = await mailbox.newPage();
    await linkPage.goto(link);
    await linkPage.getByLabel('New password', { exact: true }).fill('chosen-anew-42');
    await linkPage.getByLabel('New password again').fill('chosen-anew-42');
    await linkPage.getByRole('button', { name: 'Set the password' }).click();
    await expect(linkPage.getByRole('heading').textContent()).resolves.toBe('Password changed');
    // The link works once.
    await linkPage.goto(link);
    await expect(linkPage.getByRole('heading').textContent()).resolves.toBe('Link not valid');
    await mailbox.close();

    const verifier = await startLogin(page);
    await signIn(page, account.password);
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Invalid email or password.');
    await signIn(page, 'chosen-anew-42');
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    const tokens = await client.authorizationCodeGrant(rp, new URL(page.url()), {
      pkceCodeVerifier: verifier,
      expectedState: 'xyz',
    });
    expect(tokens.claims()!.sub).toBe(account.userid);
    await context.close();
  });
});
