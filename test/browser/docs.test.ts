import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../support/app';
import { describeWithBrowser, launchChromium } from '../support/chromium';
import { call } from '../support/http';

describeWithBrowser('the REST reference at /docs in Chromium', () => {
  let app: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startTestApp();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('is served with a policy that admits only this origin', async () => {
    const page = await call(app.url, '/docs');
    expect(page.status).toBe(200);
    const policy = page.headers.get('content-security-policy')!;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/unsafe-eval|https?:/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });

  it('renders the operations of /openapi.json and asks nothing of any other origin', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    await page.goto(`${app.url}/docs`);
    await page.getByText('Islet REST API').first().waitFor({ timeout: 30_000 });
    const blobs = page.locator('.opblock-summary-path', { hasText: '/v1/users/{userId}/blobs' });
    await expect(blobs.first().waitFor({ timeout: 30_000 })).resolves.toBeUndefined();
    await expect(page.locator('.opblock').count()).resolves.toBeGreaterThan(80);

    // One operation opened: its parameters and responses render too.
    await page.locator('.opblock-summary', { hasText: '/auth/login' }).first().click();
    await expect(page.getByText('X-Tidepool-Session-Token').first().waitFor()).resolves.toBeUndefined();

    const origin = new URL(app.url).origin;
    expect(requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
    expect(requests).toContain(`${origin}/openapi.json`);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
