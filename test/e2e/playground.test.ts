import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { REALMS } from '../../src/config';
import { PLAYGROUND_CLIENT_ID } from '../../src/auth/oidc/clients';
import { playgroundCsp } from '../../src/playground/page';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';
import { client } from '../support/relying-party';
import { UserAgent } from '../support/user-agent';

const PAGE = { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } };

let app: TestApp;
let alice: TestAccount;
beforeAll(async () => {
  app = await startTestApp();
  alice = await signUp(app, 'alice');
});
afterAll(async () => {
  await app?.stop();
});

/** Every URL the page's markup loads (src= and href=). */
const resourcesOf = (html: string) => [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((match) => match[1]);

describe('the GraphQL playground page', () => {
  it('answers a browser at GET /graphql with GraphiQL under a strict same-origin CSP', async () => {
    const page = await call(app.url, '/graphql', PAGE);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    const nonce = /'nonce-([\w+/=]+)'/.exec(csp)![1];
    expect(csp).toBe(playgroundCsp(nonce));
    expect(csp).not.toMatch(/https?:|\*|blob:|unsafe-eval/);
    expect(csp.split('; ').filter((directive) => directive.includes('data:'))).toEqual([
      "font-src 'self' data:",
      "img-src 'self' data:",
    ]);
    // Monaco's line positions are style attributes: the one thing admitted inline.
    expect(csp.match(/[\w-]+ [^;]*'unsafe-inline'/g)).toEqual(["style-src-attr 'unsafe-inline'"]);
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
    expect(page.text).toContain(`data-style-nonce="${nonce}"`);
    // A new nonce for every page.
    expect((await call(app.url, '/graphql', PAGE)).headers.get('content-security-policy')).not.toBe(csp);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.text).toContain(`data-client-id="${PLAYGROUND_CLIENT_ID}"`);
    expect(page.text).toContain(`data-redirect-uri="${app.url}/graphql"`);
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page.text).not.toMatch(/\bstyle=/);

    const resources = resourcesOf(page.text);
    expect(resources.sort()).toEqual([
      '/graphql/playground/favicon.svg',
      '/graphql/playground/playground.css',
      '/graphql/playground/playground.js',
    ]);
    for (const resource of resources) {
      expect(new URL(resource, app.url).origin).toBe(new URL(app.url).origin);
      const asset = await call(app.url, resource);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
    }
    // The stylesheet's own references (Monaco's codicon font) are relative: served from here too.
    const css = (await call(app.url, '/graphql/playground/playground.css')).text;
    const urls = [...css.matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/g)].map((match) => match[1]);
    for (const url of urls.filter((url) => !url.startsWith('data:'))) {
      expect(url).not.toMatch(/^(https?:)?\/\//);
      expect((await call(app.url, new URL(url, `${app.url}/graphql/playground/`).pathname)).status).toBe(200);
    }
    for (const worker of ['editor.worker.js', 'json.worker.js', 'graphql.worker.js']) {
      const script = await call(app.url, `/graphql/playground/${worker}`);
      expect(script.status).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/javascript/);
    }
    expect((await call(app.url, '/graphql/playground/missing.js')).status).toBe(404);
  });

  it('leaves API requests to /graphql alone', async () => {
    const json = await call(app.url, '/graphql?query=%7B__typename%7D', {
      headers: { accept: 'application/json', 'apollo-require-preflight': 'true' },
    });
    expect(json.body).toEqual({ data: { __typename: 'Query' } });
    expect(json.headers.get('content-security-policy')).toBeNull();
    const post = await call(app.url, '/graphql', { json: { query: '{ __typename }' }, headers: PAGE.headers });
    expect(post.body).toEqual({ data: { __typename: 'Query' } });
  });
});

async function authorizationRequest(realm: string, challenge?: string) {
  const url = new URL(`${app.url}/realms/${realm}/protocol/openid-connect/auth`);
  url.search = new URLSearchParams({
    client_id: PLAYGROUND_CLIENT_ID,
    response_type: 'code',
    scope: 'openid',
    redirect_uri: `${app.url}/graphql`,
    state: 'xyz',
    ...(challenge ? { code_challenge: challenge, code_challenge_method: 'S256' } : {}),
  }).toString();
  return url.href;
}

describe('the playground client', () => {
  it.each(REALMS)('is a public client of realm %s that must use PKCE', async (realm) => {
    const hop = await new UserAgent().request(await authorizationRequest(realm));
    const error = new URL(hop.location!).searchParams;
    expect(hop.location!.startsWith(`${app.url}/graphql?`)).toBe(true);
    expect(error.get('error')).toBe('invalid_request');
    expect(error.get('error_description')).toMatch(/PKCE/);
  });

  it('signs in with no consent step, and its code is worth nothing without the code verifier', async () => {
    const tokenRequest = (code: string, extra: Record<string, string> = {}) =>
      call(app.url, '/realms/dev1/protocol/openid-connect/token', {
        form: {
          grant_type: 'authorization_code',
          client_id: PLAYGROUND_CLIENT_ID,
          redirect_uri: `${app.url}/graphql`,
          code,
          ...extra,
        },
      });
    const agent = new UserAgent();
    const login = async () => {
      const verifier = client.randomPKCECodeVerifier();
      const start = await authorizationRequest('dev1', await client.calculatePKCECodeChallenge(verifier));
      let hop = await agent.follow(start, `${app.url}/graphql?`);
      if (!hop.location?.startsWith(`${app.url}/graphql?`)) {
        hop = await agent.submit(hop, { username: alice.email, password: alice.password }, `${app.url}/graphql?`);
      }
      return { code: new URL(hop.location!).searchParams.get('code')!, verifier };
    };

    const withoutVerifier = await tokenRequest((await login()).code);
    expect(withoutVerifier.status).toBe(400);
    expect(withoutVerifier.body.error).toMatch(/invalid_grant|invalid_request/);

    const { code, verifier } = await login();
    const tokens = await tokenRequest(code, { code_verifier: verifier });
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toEqual(expect.any(String));
    const me = await call(app.url, '/graphql', {
      json: { query: '{ __typename }' },
      headers: { authorization: `Bearer ${tokens.body.access_token}` },
    });
    expect(me.status).toBe(200);

    const refreshed = await call(app.url, '/realms/dev1/protocol/openid-connect/token', {
      form: { grant_type: 'refresh_token', client_id: PLAYGROUND_CLIENT_ID, refresh_token: tokens.body.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).toEqual(expect.any(String));
  });
});

describe('GRAPHQL_PLAYGROUND=false', () => {
  let off: TestApp;
  beforeAll(async () => {
    off = await startTestApp({ GRAPHQL_PLAYGROUND: 'false' });
  });
  afterAll(async () => {
    await off?.stop();
  });

  it('serves no page, no bundle and no playground client', async () => {
    // Apollo's own answer, as before the playground: its landing page is disabled.
    const page = await call(off.url, '/graphql', PAGE);
    const withoutPage = await call(app.url, '/graphql', { headers: { accept: 'application/json' } });
    expect(page.status).toBe(withoutPage.status);
    expect(page.headers.get('content-type')).toMatch(/^application\/json/);
    expect({ ...page.body, errors: [{ ...page.body.errors[0], extensions: {} }] }).toEqual({
      ...withoutPage.body,
      errors: [{ ...withoutPage.body.errors[0], extensions: {} }],
    });
    expect(page.text).not.toContain('id="playground"');
    expect(page.headers.get('content-security-policy')).toBeNull();
    expect((await call(off.url, '/graphql/playground/playground.js')).text).not.toContain('GraphiQL');
    const hop = await new UserAgent().request(
      (await authorizationRequest('dev1', 'x'.repeat(43))).replace(app.url, off.url),
    );
    expect(hop.status).toBe(400);
    expect(hop.body).toContain('invalid_client');
  });
});
