import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { REALMS, type Realm } from '../config';
import { PLAYGROUND_CLIENT_ID, playgroundRedirectUri } from '../auth/oidc/clients';
import { PLAYGROUND_BUNDLE } from './paths';

/** Where the page loads its script, stylesheet, font and Monaco's workers from: this service. */
export const PLAYGROUND_ASSETS = '/graphql/playground/';

/**
 * Only this origin: the page's own script and stylesheet, Monaco's workers and font, and
 * requests to /graphql and the realms (sign-in, token refresh). No inline script, no framing.
 * Monaco writes its theme rules into <style> elements it creates at run time: the page's
 * script gives those the response's nonce (playground/styles.ts), so no other <style> applies.
 * Monaco also renders its lines as HTML with `style` attributes (their positions), which no
 * nonce or hash can allow: `style-src-attr` admits inline attributes, and only them (they run no
 * script and, with `img-src 'self'`, load nothing from elsewhere). GraphiQL's stylesheet carries
 * its fonts inline as data: URLs, hence `font-src data:` (nothing is fetched for them).
 */
export function playgroundCsp(styleNonce?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    styleNonce ? `style-src 'self' 'nonce-${styleNonce}'` : "style-src 'self'",
    "style-src-attr 'unsafe-inline'",
    "font-src 'self' data:",
    "img-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const PAGE_HEADERS = {
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export interface PlaygroundOptions {
  /** PUBLIC_URL: issuers and the page's own address (the client's redirect URI) hang off it. */
  baseUrl: string;
  defaultRealm: Realm;
}

const escapeAttribute = (value: string) => value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function page({ baseUrl, defaultRealm }: PlaygroundOptions, styleNonce: string): string {
  const data = {
    'style-nonce': styleNonce,
    'issuer-base': `${baseUrl}/realms/`,
    realms: REALMS.join(' '),
    'default-realm': defaultRealm,
    'client-id': PLAYGROUND_CLIENT_ID,
    'redirect-uri': playgroundRedirectUri(baseUrl),
    assets: PLAYGROUND_ASSETS,
  };
  const attributes = Object.entries(data)
    .map(([name, value]) => `data-${name}="${escapeAttribute(value)}"`)
    .join(' ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="robots" content="noindex" />
    <title>Islet GraphQL playground</title>
    <link rel="icon" type="image/svg+xml" href="${PLAYGROUND_ASSETS}favicon.svg" />
    <link rel="stylesheet" href="${PLAYGROUND_ASSETS}playground.css" />
    <script type="module" src="${PLAYGROUND_ASSETS}playground.js"></script>
  </head>
  <body>
    <div id="playground" ${attributes}></div>
  </body>
</html>
`;
}

/** Whether the request is a browser asking for a page (as Apollo tells its landing page apart). */
function wantsPage(req: Request): boolean {
  return (
    req.method === 'GET' &&
    req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html'
  );
}

/**
 * GraphiQL at `GET /graphql` for browsers, and its bundle (`npm run build`) under
 * /graphql/playground/. Anything else goes on to the GraphQL endpoint.
 */
export function playgroundRouter(options: PlaygroundOptions): Router {
  const router = express.Router({ strict: true });
  const missing = (res: Response) =>
    res.status(503).type('text/plain').send('The playground is not built: run `npm run build`.');
  router.get('/', (req: Request, res: Response, next: NextFunction) => {
    if (!wantsPage(req)) return next();
    if (!fs.existsSync(path.join(PLAYGROUND_BUNDLE, 'playground.js'))) return missing(res);
    const nonce = crypto.randomBytes(18).toString('base64');
    res
      .set({ ...PAGE_HEADERS, 'Content-Security-Policy': playgroundCsp(nonce) })
      .type('html')
      .send(page(options, nonce));
  });
  router.use(
    '/playground',
    express.static(PLAYGROUND_BUNDLE, {
      index: false,
      dotfiles: 'ignore',
      // Same names on every build: the browser asks again, and gets 304 when nothing changed.
      cacheControl: false,
      setHeaders: (res) => res.set({ 'Cache-Control': 'no-cache', 'Content-Security-Policy': playgroundCsp() }),
    }),
  );
  router.use('/playground', (_req: Request, res: Response) => {
    res.status(404).type('text/plain').send('Not found');
  });
  return router;
}
