import express, { type Router } from 'express';
import { REALMS } from '../config';
import { html } from '../kernel/html';

export interface FrontDoorOptions {
  /** The service's public base URL; every link is absolute under it. */
  baseUrl: string;
  version: string;
  /** Whether `/graphql` answers browsers with the playground (GRAPHQL_PLAYGROUND). */
  playground: boolean;
}

interface Link {
  rel: string;
  title: string;
  href: string;
}

/** What `GET /` lists: the service's own pages and every realm's discovery document. */
export function frontDoorLinks({ baseUrl, playground }: FrontDoorOptions): Link[] {
  return [
    ...(playground ? [{ rel: 'playground', title: 'GraphQL playground', href: `${baseUrl}/graphql` }] : []),
    { rel: 'graphql', title: 'GraphQL endpoint (POST)', href: `${baseUrl}/graphql` },
    { rel: 'docs', title: 'REST API reference', href: `${baseUrl}/docs` },
    { rel: 'openapi', title: 'OpenAPI description', href: `${baseUrl}/openapi.json` },
    { rel: 'health', title: 'Liveness', href: `${baseUrl}/healthz` },
    ...REALMS.map((realm) => ({
      rel: 'discovery',
      title: `Realm ${realm}: OpenID Connect discovery`,
      href: `${baseUrl}/realms/${realm}/.well-known/openid-configuration`,
    })),
  ];
}

// No script and no style: the page needs nothing but its own markup.
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
};

function page(options: FrontDoorOptions, links: Link[]): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Islet ${options.version}</title>
      </head>
      <body>
        <h1>Islet ${options.version}</h1>
        <p>An open diabetes data platform: Tidepool's REST API, a GraphQL API and OpenID Connect realms.</p>
        <ul>
          ${links.map((link) => html`<li><a rel="${link.rel}" href="${link.href}">${link.title}</a></li> `)}
        </ul>
      </body>
    </html> `.value;
}

/** `GET /`: a page naming the service and linking to its entry points; JSON unless the client asks for HTML. */
export function frontDoorRouter(options: FrontDoorOptions): Router {
  const router = express.Router();
  const links = frontDoorLinks(options);
  const json = { service: 'islet', version: options.version, links };
  const markup = page(options, links);
  router.get('/', (req, res) => {
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') return res.set(PAGE_HEADERS).type('html').send(markup);
    res.json(json);
  });
  return router;
}
