import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { REALMS } from '../../src/config';
import { API_INFO } from '../../rest-compat/openapi/service-endpoints';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';

const BROWSER = { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } };
const VERSION = API_INFO.version;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

const entryPoints = (url: string) => [
  `${url}/graphql`,
  `${url}/docs`,
  `${url}/openapi.json`,
  `${url}/healthz`,
  ...REALMS.map((realm) => `${url}/realms/${realm}/.well-known/openid-configuration`),
];

describe('GET /', () => {
  it('answers a program with JSON naming the service, its version and its entry points', async () => {
    const reply = await call(app.url, '/', { headers: { accept: '*/*' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toMatchObject({ service: 'islet', version: VERSION });
    const hrefs = reply.body.links.map((link: { href: string }) => link.href);
    expect(hrefs).toEqual(expect.arrayContaining(entryPoints(app.url)));
    expect(reply.body.links.find((link: { rel: string }) => link.rel === 'playground').href).toBe(`${app.url}/graphql`);
    // Every link it gives leads somewhere.
    for (const href of new Set<string>(hrefs)) {
      const path = href.slice(app.url.length);
      expect({ path, status: (await call(app.url, path, BROWSER)).status }).toEqual({ path, status: 200 });
    }
  });

  it('answers a browser with a page linking to the same entry points, scripts and styles forbidden', async () => {
    const page = await call(app.url, '/', BROWSER);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(page.headers.get('vary')).toMatch(/Accept/);
    expect(page.text).toContain(`<title>Islet ${VERSION}</title>`);
    const hrefs = [...page.text.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);
    expect(hrefs).toEqual(expect.arrayContaining(entryPoints(app.url)));
    expect(page.text).not.toMatch(/<script|style=/);
  });

  it('names no playground where GRAPHQL_PLAYGROUND is off', async () => {
    const bare = await startTestApp({ GRAPHQL_PLAYGROUND: 'false' });
    try {
      const reply = await call(bare.url, '/');
      expect(reply.body.links.map((link: { rel: string }) => link.rel)).not.toContain('playground');
    } finally {
      await bare.stop();
    }
  }, 60_000);
});
