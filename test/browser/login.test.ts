import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { describeWithBrowser, launchChromium } from '../support/chromium';
import { startExternalIdp, type ExternalIdp } from '../support/external-idp';
import { jsonFile } from '../support/files';
import { client, relyingParty } from '../support/relying-party';

const OUTPUT = path.join(__dirname, '..', '..', 'test-output');

describeWithBrowser('the login flow in Chromium', () => {
  let app: TestApp;
  let idp: ExternalIdp;
  let browser: Browser;
  let callback: http.Server;
  let redirectUri: string;
  let alice: TestAccount;
  let rp: client.Configuration;

  beforeAll(async () => {
    idp = await startExternalIdp();
    const providers = jsonFile('providers.json', {
      dev1: [
        {
          alias: 'ext',
          display_name: 'External ID',
          issuer: idp.issuer,
          client_id: idp.clientId,
          client_secret: idp.clientSecret,
        },
      ],
    });
    app = await startTestApp({ IDENTITY_PROVIDERS_FILE: providers });
    idp.redirectPrefix = `${app.url}/realms/dev1/broker/`;
    alice = await signUp(app, 'alice');
    rp = await relyingParty(app, 'dev1', 'islet-dev', app.devClientSecret);
    // The client application: any page on loopback (islet-dev accepts any loopback redirect).
    callback = http.createServer((_req, res) => res.end('signed in'));
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/app/callback`;
    browser = await launchChromium();
    fs.mkdirSync(OUTPUT, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    callback?.close();
    await app?.stop();
    await idp?.close();
  });

  async function startLogin(page: Page, extra: Record<string, string> = {}) {
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'xyz',
      ...extra,
    });
    await page.goto(url.href);
    return verifier;
  }

  async function exchange(page: Page, verifier: string) {
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    const tokens = await client.authorizationCodeGrant(rp, new URL(page.url()), {
      pkceCodeVerifier: verifier,
      expectedState: 'xyz',
    });
    return tokens.claims()!;
  }

  it('signs in through the login page (screenshot in test-output/) and gets tokens with PKCE', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const verifier = await startLogin(page, { login_hint: alice.email });
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe(alice.email);
    await page.screenshot({ path: path.join(OUTPUT, 'login-page.png'), fullPage: true });
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('Invalid email or password.');
    await page.getByLabel('Password').fill(alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await exchange(page, verifier)).sub).toBe(alice.userid);

    // Same browser, prompt=none: the session answers without a page.
    const silent = await startLogin(page, { prompt: 'none' });
    expect((await exchange(page, silent)).sub).toBe(alice.userid);
    await context.close();
  });

  it('answers prompt=none without a session with login_required at the redirect URI', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await startLogin(page, { prompt: 'none' });
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');
    await context.close();
  });

  it('works with JavaScript turned off', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const verifier = await startLogin(page);
    await page.getByLabel('Email').fill(alice.email);
    await page.getByLabel('Password').fill(alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await exchange(page, verifier)).sub).toBe(alice.userid);
    await context.close();
  });

  it('goes straight to the external provider with kc_idp_hint and comes back signed in', async () => {
    const email = uniqueEmail('brokered');
    const sub = `ext-${Date.now()}`;
    idp.accounts.set(sub, { email, email_verified: true });
    idp.nextLogin = sub;
    const context = await browser.newContext();
    const page = await context.newPage();
    const verifier = await startLogin(page, { kc_idp_hint: 'ext' });
    expect((await exchange(page, verifier)).email).toBe(email);
    await context.close();
  });
});
