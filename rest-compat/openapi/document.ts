import { STATUS_CODES } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { RestRoute, RouteDoc } from '../route';
import { graphqlInputSchema } from './graphql-input';
import { ERROR_BODY, PATH_PARAMETERS, RESPONSE_HEADERS } from './schemas';

/** Anything served with a RouteDoc: a REST row, a download, or one of the service's own endpoints. */
export interface DocumentedRoute {
  method: RestRoute['method'];
  path: string;
  status: number;
  doc?: RouteDoc;
  lenientCredentials?: boolean;
  errorStatus?: RestRoute['errorStatus'];
  /** The errors every request to it may meet before it runs (bad input, credentials, dependencies). */
  edgeErrors: readonly number[];
}

/** What the REST rows' edge may answer besides their own errors: bad input, credentials, bodies, dependencies. */
export const REST_EDGE_ERRORS = [400, 401, 403, 404, 413, 415, 500, 503] as const;
/** A download reads no body. */
export const DOWNLOAD_EDGE_ERRORS = [400, 401, 403, 404, 500, 503] as const;

/** Marks an operation whose route has no metadata: the OpenAPI test fails on it. */
export const UNDOCUMENTED = 'x-islet-undocumented';
/** Names Tidepool's description of the same operation (`file#operationId`). */
export const TIDEPOOL_OPERATION = 'x-tidepool-operation';

export interface OpenApiInput {
  schema: GraphQLSchema;
  routes: readonly DocumentedRoute[];
  info: { title: string; version: string; description: string };
}

type Json = Record<string, unknown>;

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** `post /v1/users/:userId/blobs` → `postV1UsersUserIdBlobs`: unique per method and path. */
function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

/** Replaces every `graphqlInput(...)` marker by the converted input type. */
function resolveInputs(value: unknown, schema: GraphQLSchema): unknown {
  if (Array.isArray(value)) return value.map((item) => resolveInputs(item, schema));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Json;
  if (typeof object['x-graphql-input'] === 'string')
    return graphqlInputSchema(schema, object['x-graphql-input'], (object['x-omit'] as string[]) ?? []);
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, resolveInputs(item, schema)]));
}

function security(route: DocumentedRoute): Json[] {
  if (route.doc?.credentials === 'basic') return [{ basic: [] }];
  if (route.doc?.credentials === 'none') return [];
  const tokens = [{ sessionToken: [] }, { bearer: [] }];
  return route.lenientCredentials ? [{}, ...tokens] : tokens;
}

function requestBody(doc: RouteDoc, schema: GraphQLSchema): Json | undefined {
  const body = doc.body;
  if (!body) return undefined;
  if ('mediaType' in body)
    return {
      description: body.description,
      content: {
        [body.mediaType]: { schema: body.schema ?? { type: 'string', format: 'binary' }, example: body.example },
      },
    };
  return {
    required: body.required ?? true,
    content: { 'application/json': { schema: resolveInputs(body.schema, schema), example: body.example } },
  };
}

function successResponse(route: DocumentedRoute, schema: GraphQLSchema): Json {
  const doc = route.doc;
  const headers = Object.fromEntries(
    (doc?.responseHeaders ?? []).map((name) => [name, { required: true, ...RESPONSE_HEADERS[name] }]),
  );
  const content = doc?.response && {
    [doc.responseMediaType ?? 'application/json']: { schema: resolveInputs(doc.response, schema) },
    ...Object.fromEntries(Object.entries(doc.otherMediaTypes ?? {}).map(([type, body]) => [type, { schema: body }])),
  };
  return {
    description: STATUS_CODES[route.status] ?? String(route.status),
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(content ? { content } : {}),
  };
}

function errorStatuses(route: DocumentedRoute): number[] {
  // Any change may meet a concurrent one (CONFLICT: the state changed meanwhile).
  const conflict = route.method === 'get' || route.edgeErrors.length === 0 ? [] : [409];
  const statuses = new Set([
    ...conflict,
    ...route.edgeErrors,
    ...(route.doc?.errors ?? []),
    ...Object.values(route.errorStatus ?? {}),
  ]);
  return [...statuses].filter((status) => status !== route.status).sort();
}

function operation(route: DocumentedRoute, schema: GraphQLSchema): Json {
  const doc = route.doc;
  const pathParameters = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: PATH_PARAMETERS[name!] ?? { type: 'string' },
  }));
  const errors = Object.fromEntries(
    errorStatuses(route).map((status) => [
      String(status),
      {
        description: STATUS_CODES[status],
        content: { 'application/json': { schema: doc?.errorBody ?? { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
  const body = doc && requestBody(doc, schema);
  return {
    operationId: operationId(route.method, route.path),
    summary: doc?.summary ?? `${route.method.toUpperCase()} ${route.path}`,
    ...(doc?.description ? { description: doc.description } : {}),
    tags: [doc?.tag ?? 'Undocumented'],
    security: security(route),
    parameters: [...pathParameters, ...(doc?.parameters ?? [])],
    ...(body ? { requestBody: body } : {}),
    responses: { [String(route.status)]: successResponse(route, schema), ...errors },
    ...(doc?.tidepool ? { [TIDEPOOL_OPERATION]: doc.tidepool } : {}),
    ...(doc ? {} : { [UNDOCUMENTED]: true }),
  };
}

/**
 * One operation served in two media types by two routes on the same method and path (a JSON row
 * and a download chosen by Accept or `format`): the first's operation, with the other's success
 * content beside its own, its parameters added and its description appended.
 */
function negotiated(first: Json, other: Json): Json {
  const responses = first.responses as Record<string, Json>;
  const otherResponses = other.responses as Record<string, Json>;
  const merged: Record<string, Json> = { ...otherResponses, ...responses };
  for (const [status, response] of Object.entries(otherResponses))
    if (responses[status]?.content && response.content)
      merged[status] = {
        ...responses[status],
        content: { ...(responses[status].content as Json), ...(response.content as Json) },
      };
  const parameters = first.parameters as { name: string; in: string }[];
  const added = (other.parameters as { name: string; in: string }[]).filter(
    (parameter) => !parameters.some((known) => known.name === parameter.name && known.in === parameter.in),
  );
  const description = [first.description, other.description].filter(Boolean).join('\n\n');
  return {
    ...first,
    ...(description ? { description } : {}),
    parameters: [...parameters, ...added],
    responses: merged,
  };
}

/** The OpenAPI 3.1 description of every route, generated from the routes' own metadata. */
export function openApiDocument({ schema, routes, info }: OpenApiInput): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const item = (paths[openApiPath(route.path)] ??= {});
    const described = operation(route, schema);
    item[route.method] = item[route.method] ? negotiated(item[route.method] as Json, described) : described;
  }
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      schemas: { Error: ERROR_BODY },
      securitySchemes: {
        sessionToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Tidepool-Session-Token',
          description: 'An access token, as Tidepool clients send it',
        },
        bearer: { type: 'http', scheme: 'bearer', description: 'The same access token as a bearer token' },
        basic: { type: 'http', scheme: 'basic', description: 'Username (or email) and password, to log in' },
      },
    },
  };
}
