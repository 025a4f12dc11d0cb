import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { describeWithBrowser, launchChromium } from '../support/chromium';
import { eventually } from '../support/eventually';
import { call } from '../support/http';
import { liveSubscriptions } from '../support/live';
import { EXAMPLES } from '../../playground/examples';
import { seedDemoClinic } from '../../src/cli/demo-clinic';

/** The query the analyst runs; `me { userId }` in the schema's contract. */
const ME_QUERY = '{ me { userId } }';

const OUTPUT = path.join(__dirname, '..', '..', 'test-output');

describeWithBrowser('the GraphQL playground in Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let alice: TestAccount;

  beforeAll(async () => {
    app = await startTestApp();
    alice = await signUp(app, 'alice');
    browser = await launchChromium();
    fs.mkdirSync(OUTPUT, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  /** Opens the playground at `origin` and signs in (Alice by default) through the realm's login page. */
  async function signIn(
    page: Page,
    { origin = app.url, email = alice.email, password = alice.password } = {},
  ): Promise<void> {
    await page.goto(`${origin}/graphql`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/realms/dev1/'));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/graphql' && url.search === '');
  }

  /** Replaces what the active tab's query editor holds with `text`. */
  async function typeQuery(page: Page, text: string): Promise<void> {
    await page.locator('.graphiql-query-editor .monaco-editor').first().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
  }

  it('signs in through the realm login page, runs a query with the token, and asks only its own origin', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await context.clock.install();
    const requests: string[] = [];
    const problems: string[] = [];
    const bearers: string[] = [];
    const grants: string[] = [];
    context.on('request', (request) => {
      requests.push(request.url());
      const url = new URL(request.url());
      if (url.pathname === '/graphql' && request.method() === 'POST') bearers.push(request.headers().authorization);
      if (url.pathname.endsWith('/openid-connect/token'))
        grants.push(new URLSearchParams(request.postData()!).get('grant_type')!);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await signIn(page);
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toBe(`Signed in as ${alice.email}`);

    // Monaco's query editor: replace the default query with ours, then run it.
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    // Completion from the schema (monaco-graphql's worker, served from here too).
    await page.keyboard.insertText('{ me { user');
    await page.keyboard.press('Control+Space');
    const suggestions = page.locator('.suggest-widget');
    await expect(suggestions.getByText('userId').first().waitFor({ timeout: 20_000 })).resolves.toBeUndefined();
    await page.keyboard.press('Escape');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(ME_QUERY);
    await page.keyboard.press('ControlOrMeta+Enter');
    const result = page.locator('.result-window');
    await expect(result.getByText(alice.userid).first().waitFor({ timeout: 20_000 })).resolves.toBeUndefined();
    // Monaco lays text out with non-breaking spaces.
    const shown = (await result.innerText()).replace(/\s+/g, ' ');
    expect(shown).toContain(`"userId": "${alice.userid}"`);
    await page.screenshot({ path: path.join(OUTPUT, 'playground.png') });
    expect(grants).toEqual(['authorization_code']);
    const first = bearers.at(-1)!;
    expect(first).toMatch(/^Bearer ey/);

    // Shortly before the access token expires (ACCESS_TOKEN_TTL, 300 s), the page refreshes it.
    const refreshed = page.waitForResponse((response) => response.url().endsWith('/openid-connect/token'));
    await page.clock.fastForward('04:40');
    expect((await refreshed).status()).toBe(200);
    expect(grants).toEqual(['authorization_code', 'refresh_token']);
    const again = page.waitForResponse(
      (response) => response.url().endsWith('/graphql') && response.request().method() === 'POST',
    );
    await editor.click();
    await page.keyboard.press('ControlOrMeta+Enter');
    expect(await (await again).json()).toEqual({ data: { me: { userId: alice.userid } } });
    expect(bearers.at(-1)).toMatch(/^Bearer ey/);
    expect(bearers.at(-1)).not.toBe(first);

    // Signing out ends the realm session too (its logout page), and comes back here.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/realms/dev1/'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/graphql');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByLabel('Password').waitFor()).resolves.toBeUndefined();

    const origin = new URL(app.url).origin;
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.filter((url) => new URL(url).origin !== origin && !url.startsWith('data:'))).toEqual([]);
    expect(requests).toContain(`${origin}/graphql/playground/graphql.worker.js`);
    expect(problems.filter((text) => /Content Security Policy|Refused/i.test(text))).toEqual([]);
    await context.close();
  }, 60_000);

  it('runs a subscription over WebSocket and shows the summary an upload changes', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    await signIn(page);

    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(
      `subscription { glucoseSummaryUpdated(userId: "${alice.userid}") { kind glucoseSummary(period: ONE_DAY) { cgm { period { totalRecords } } } } }`,
    );
    const following = async () => (await liveSubscriptions(app.url)) === 1;
    await page.keyboard.press('ControlOrMeta+Enter');
    await eventually(following, 'the playground subscribed');

    const opened = await call(app.url, `/v1/users/${alice.userid}/datasets`, {
      token: alice.token,
      json: { dataSetType: 'continuous' },
    });
    const now = Math.floor(Date.now() / 300_000) * 300_000;
    const records = [0, 1, 2].map((index) => ({
      type: 'cbg',
      time: new Date(now - index * 300_000).toISOString(),
      value: 110,
      units: 'mg/dL',
    }));
    expect(
      (await call(app.url, `/v1/datasets/${opened.body.data.id}/data`, { token: alice.token, json: records })).status,
    ).toBe(200);
    const result = page.locator('.result-window');
    await expect(result.getByText('CGM').first().waitFor({ timeout: 20_000 })).resolves.toBeUndefined();
    const shown = (await result.innerText()).replace(/\s+/g, ' ');
    expect(shown).toContain('"totalRecords": 3');
    await page.screenshot({ path: path.join(OUTPUT, 'playground-subscription.png') });
    expect(sockets).toEqual([`${new URL(app.url).origin.replace('http', 'ws')}/graphql`]);
    expect(problems.filter((text) => /Content Security Policy|Refused|WebSocket/i.test(text))).toEqual([]);
    await context.close();
  }, 60_000);
  /** Lines of the query editor wider than the editor shows: a hint or example read only by scrolling. */
  async function overflowingLines(page: Page): Promise<string[]> {
    return page
      .locator('.graphiql-query-editor .monaco-editor')
      .first()
      .evaluate((editor) => {
        // GraphiQL's toolbar (run, prettify, ...) floats over the editor's right edge.
        const toolbar = editor.closest('.graphiql-query-editor')?.querySelector('.graphiql-toolbar');
        const visible = Math.min(
          editor.querySelector('.overflow-guard')!.getBoundingClientRect().right,
          toolbar?.getBoundingClientRect().left ?? Infinity,
        );
        return [...editor.querySelectorAll('.view-line > span')]
          .filter((line) => line.getBoundingClientRect().right > visible)
          .map((line) => line.textContent!);
      });
  }

  it('reached at 127.0.0.1, moves to PUBLIC_URL and signs in there; shows the email, an icon, a hint that fits', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    await page.goto(`http://127.0.0.1:${new URL(app.url).port}/graphql`);
    await page.waitForURL((url) => url.origin === new URL(app.url).origin);
    await page.locator('.graphiql-query-editor .view-line').first().waitFor();
    expect(await overflowingLines(page)).toEqual([]);
    await signIn(page, { origin: `http://127.0.0.1:${new URL(app.url).port}` });
    expect(new URL(page.url()).origin).toBe(new URL(app.url).origin);
    await expect(page.getByTestId('signed-in-as').textContent()).resolves.toBe(`Signed in as ${alice.email}`);
    const icon = await page.locator('link[rel=icon]').getAttribute('href');
    expect(requests).toContain(new URL(icon!, app.url).href);
    expect(requests.filter((url) => url.endsWith('/favicon.ico'))).toEqual([]);
    await context.close();
  }, 60_000);

  it('says on the page when signing in fails', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // The realm cannot be reached: its discovery document fails to load.
    await page.route('**/.well-known/openid-configuration', (route) => route.abort());
    await page.goto(`${app.url}/graphql`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('.islet-error').textContent()).resolves.toMatch(/^Sign-in failed: /);
    await expect(page.getByRole('button', { name: 'Sign in' }).isEnabled()).resolves.toBe(true);
    await context.close();
  }, 60_000);

  it('opens the ready-made examples on the seeded demo clinic, and marks no error in a query omitting `period`', async () => {
    const password = 'demo-password-for-tests';
    await seedDemoClinic({
      base: app.url,
      serverSecret: app.serverSecret,
      adminPassword: password,
      patients: 3,
      onPatient: () => undefined,
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page, { email: 'demo-admin@islet.example', password });
    const tabs = page.locator('.graphiql-tab');
    await expect(tabs.nth(EXAMPLES.length - 1).waitFor()).resolves.toBeUndefined();
    expect((await tabs.allInnerTexts()).map((text) => text.trim())).toEqual([
      'PatientsWorstFirst',
      'TideReport',
      'ReadingsOfADay',
      'PatientSummaries',
    ]);
    await page.locator('.graphiql-query-editor .view-line').first().waitFor();
    expect(await overflowingLines(page)).toEqual([]);
    await page.locator('.graphiql-query-editor .monaco-editor').first().click();
    await page.keyboard.press('ControlOrMeta+Enter');
    const result = page.locator('.result-window');
    await expect(result.getByText('timeInTargetPercent').first().waitFor({ timeout: 20_000 })).resolves.toBeUndefined();
    const shown = (await result.innerText()).replace(/\s+/g, ' ');
    expect(shown).toContain('"fullName"');
    expect(shown).toContain('"units": "MG_DL"');
    expect(shown).not.toContain('"errors"');
    const screenshot = path.join(OUTPUT, 'playground-examples.png');
    await page.screenshot({ path: screenshot });
    process.stdout.write(`playground screenshot: ${screenshot}\n`);

    // GraphiQL validates against the schema it introspected: `period` omitted takes its default,
    // so the only marker is on the field that does not exist.
    await typeQuery(page, '{ me { glucoseSummary { cgm { period { timeInTargetPercent } } } nope } }');
    const markers = page.locator('.graphiql-query-editor .squiggly-error');
    await expect(markers.first().waitFor({ timeout: 20_000 })).resolves.toBeUndefined();
    const marked = await page.locator('.graphiql-query-editor').evaluate((editor) => {
      const word = [...editor.querySelectorAll('.view-line span span')].find((span) => span.textContent === 'nope')!;
      const target = word.getBoundingClientRect();
      return [...editor.querySelectorAll('.squiggly-error')].map((marker) => {
        const box = marker.getBoundingClientRect();
        return box.left < target.right && box.right > target.left ? 'nope' : 'elsewhere';
      });
    });
    expect(new Set(marked)).toEqual(new Set(['nope']));
    await context.close();
  }, 180_000);
});
