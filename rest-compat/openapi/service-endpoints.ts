import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/infra/project-root';
import type { DocumentedRoute } from './document';
import { dateTime, ERROR_BODY, object, string } from './schemas';

/** The description's `info`: the service's version, and what the description leaves to others. */
export const API_INFO = {
  title: 'Islet REST API',
  version: (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string })
    .version,
  description: [
    "Tidepool's REST API as Islet serves it: Tidepool's paths, statuses and bodies; every error answers",
    '`{"code": <status>, "reason": "…", "error": 0}`. The same capabilities, and more, are in the GraphQL API at',
    '`/graphql` (its schema is its description). OpenID Connect endpoints live under `/realms/{realm}/` and are',
    "listed by each realm's discovery document.",
  ].join(' '),
};

const READINESS = object({ status: string(), database: string(), objectStore: string() }, [
  'status',
  'database',
  'objectStore',
]);
/** Every path meets the request guard first (src/http/request-guard.ts): a NUL or a path that does not decode is a 400. */
const plain = (route: Omit<DocumentedRoute, 'edgeErrors' | 'method'>): DocumentedRoute => ({
  method: 'get',
  edgeErrors: [400],
  ...route,
});

const HEALTHZ = plain({
  path: '/healthz',
  status: 200,
  doc: {
    tag: 'Operations',
    summary: 'Liveness: the process serves requests',
    credentials: 'none',
    response: object({ status: { const: 'ok' } }, ['status']),
  },
});

const READYZ = plain({
  path: '/readyz',
  status: 200,
  doc: {
    tag: 'Operations',
    summary: 'Readiness: the database and the object store answer',
    description: 'Each dependency is `ok` or `unavailable`; the reason is in the log only.',
    credentials: 'none',
    response: READINESS,
    errors: [503],
    errorBody: { anyOf: [READINESS, ERROR_BODY] },
  },
});

const METRICS = plain({
  path: '/metrics',
  status: 200,
  doc: {
    tag: 'Operations',
    summary: 'Prometheus metrics (text format)',
    description: 'Needs `Authorization: Bearer <METRICS_TOKEN>` when that setting is given.',
    response: string(),
    responseMediaType: 'text/plain',
    errors: [401, 404],
  },
});

const INFO = plain({
  path: '/info',
  status: 200,
  doc: {
    tag: 'Uploads',
    summary: 'The data schema version and the oldest uploader accepted',
    credentials: 'none',
    response: object({ versions: object({ schema: { type: 'integer' }, uploaderMinimum: string() }) }, ['versions']),
  },
});

const TIME = plain({
  path: '/v1/time',
  status: 200,
  doc: {
    tag: 'Uploads',
    summary: "The server's clock",
    credentials: 'none',
    response: object({ data: object({ time: dateTime }, ['time']) }, ['data']),
  },
});

const FRONT_DOOR = plain({
  path: '/',
  status: 200,
  doc: {
    tag: 'Operations',
    summary: "The service's front door: its name, version and entry points",
    description:
      "Links to the GraphQL playground, this description (`/docs`, `/openapi.json`), `/healthz` and every realm's discovery document: an HTML page for a client that asks for `text/html` (a browser), JSON otherwise.",
    credentials: 'none',
    response: object(
      {
        service: string(),
        version: string(),
        links: {
          type: 'array',
          items: object({ rel: string(), title: string(), href: string() }, ['rel', 'title', 'href']),
        },
      },
      ['service', 'version', 'links'],
    ),
  },
});

const OPENAPI_JSON = plain({
  path: '/openapi.json',
  status: 200,
  doc: { tag: 'Operations', summary: 'This description', credentials: 'none', response: { type: 'object' } },
});

const DOCS = plain({
  path: '/docs',
  status: 200,
  doc: {
    tag: 'Operations',
    summary: 'This description, rendered',
    credentials: 'none',
    response: string(),
    responseMediaType: 'text/html',
  },
});

const DISCOVERY = plain({
  path: '/realms/:realm/.well-known/openid-configuration',
  status: 200,
  doc: {
    tag: 'OpenID Connect',
    summary: "A realm's OpenID Connect discovery document",
    description:
      "Lists the realm's OpenID Connect and OAuth endpoints (authorization, token, userinfo, JWKS, introspection, revocation, logout), which oidc-provider serves and this description does not repeat.",
    credentials: 'none',
    response: object({ issuer: string(), authorization_endpoint: string(), token_endpoint: string() }, [
      'issuer',
      'token_endpoint',
    ]),
    errors: [400, 404],
    errorBody: object({ error: string(), error_description: string() }, ['error']),
  },
});

/**
 * The service's own endpoints besides the REST table, as the OpenAPI description lists them.
 * `/metrics` is listed where this port serves it (not with METRICS_PORT).
 */
export function serviceEndpoints({ metricsHere }: { metricsHere: boolean }): DocumentedRoute[] {
  return [HEALTHZ, READYZ, ...(metricsHere ? [METRICS] : []), INFO, TIME, FRONT_DOOR, OPENAPI_JSON, DOCS, DISCOVERY];
}
