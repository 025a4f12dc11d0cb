import path from 'node:path';
import express, { type Router } from 'express';

/** Where the reference page loads Swagger UI (swagger-ui-dist, served from node_modules by this service) and its start script. */
export const DOCS_ASSETS = '/docs/assets/';
const SWAGGER_UI = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSET_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png'];

/**
 * Only this origin: Swagger UI's script and stylesheet, its start script, the description at
 * /openapi.json and "try it out" requests to this API. No inline script, no framing. React
 * renders some positions as `style` attributes (`style-src-attr`, which runs nothing), and the
 * stylesheet's icons are inline data: SVGs (`img-src data:`, nothing fetched).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'Content-Security-Policy': DOCS_CSP,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

// Swagger UI's validator badge would send the description to validator.swagger.io: off.
const START_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#docs', deepLinking: true, validatorUrl: null });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Islet REST API reference</title>
    <link rel="icon" type="image/png" href="${DOCS_ASSETS}favicon-32x32.png" />
    <link rel="stylesheet" href="${DOCS_ASSETS}swagger-ui.css" />
    <script src="${DOCS_ASSETS}swagger-ui-bundle.js"></script>
    <script src="${DOCS_ASSETS}start.js"></script>
  </head>
  <body>
    <div id="docs"></div>
  </body>
</html>
`;

/** `GET /openapi.json` (the description generated at start-up) and `GET /docs`, its rendered reference. */
export function apiDocsRouter(document: object): Router {
  const router = express.Router();
  const json = JSON.stringify(document);
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(json);
  });
  router.get('/docs', (_req, res) => {
    res.set(PAGE_HEADERS).type('html').send(PAGE);
  });
  router.get(`${DOCS_ASSETS}start.js`, (_req, res) => {
    res.set(PAGE_HEADERS).type('text/javascript').send(START_SCRIPT);
  });
  for (const file of ASSET_FILES) {
    router.get(`${DOCS_ASSETS}${file}`, (_req, res) => {
      res.set(PAGE_HEADERS).sendFile(path.join(SWAGGER_UI, file), { maxAge: '1h' });
    });
  }
  return router;
}
