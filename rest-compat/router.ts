import { pipeline } from 'node:stream/promises';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { isEnumType, parse, validate, type ExecutionResult, type GraphQLError, type GraphQLSchema } from 'graphql';
import { describeInputError, type EnumValues } from '../src/graphql/errors';
import { prepareOperation } from '../src/graphql/compiled-operation';
import { requestLogger } from '../src/http/request-context';
import { asAppError } from '../src/infra/failures';
import {
  invalid,
  isAppError,
  retryAfterOf,
  unauthenticated,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
  type AppError,
} from '../src/kernel/errors';
import { isAuthenticated } from '../src/kernel/principal';
import type { Scope } from '../src/kernel/scope';
import { findNul, findNulInVariables, longListInVariables, nulRefused } from '../src/kernel/validation';
import { errorBody, HTTP_STATUS } from '../src/http/http-errors';
import { declaredQuery } from './declared-query';
import {
  JsonText,
  type ContentRoute,
  type RestRequest,
  type RestRoute,
  type RouteServices,
  type ServiceRoute,
} from './route';

export function scopeOf(res: Response): Scope {
  return res.locals.scope as Scope;
}

/**
 * Answers an AppError in the legacy wire format; `overrides` are a route's status quirks. A
 * dependency's failure behind an UNAVAILABLE (its endpoint, path or key) goes to the log with
 * the request id; the client reads only which kind of dependency failed.
 */
export function sendAppError(res: Response, error: AppError, overrides: RestRoute['errorStatus'] = {}): void {
  if (error.code === 'UNAVAILABLE' && error.cause !== undefined)
    requestLogger(res)?.error({ err: error.cause, reason: error.message }, 'dependency unavailable');
  const status = overrides[error.code] ?? HTTP_STATUS[error.code];
  if (status === 503) res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  res.status(status).json(errorBody(status, error.message));
}

const enumValuesOf =
  (schema: GraphQLSchema): EnumValues =>
  (name) => {
    const type = schema.getType(name);
    return isEnumType(type) ? type.getValues().map((value) => value.name) : undefined;
  };

/**
 * Answers the first of an operation's errors, and logs every one that is a bug (a field that
 * failed with anything but an AppError), not only the first.
 */
function sendExecutionErrors(
  res: Response,
  route: RestRoute,
  errors: readonly GraphQLError[],
  enumValues: EnumValues,
): void {
  for (const error of errors) {
    if (error.path !== undefined && !asAppError(error.originalError))
      scopeOf(res).logger.error(
        { err: error.originalError ?? error, path: error.path },
        'rest-compat operation failed',
      );
  }
  const [error] = errors;
  const original = asAppError(error.originalError);
  if (original) return sendAppError(res, original, route.errorStatus);
  if (error.path === undefined) {
    // Documents are validated at start-up, so an error before any field ran is bad variable
    // input: named by its field and rule, never echoing the value or the operation's variables.
    const problem = describeInputError(error.message, error.originalError, enumValues);
    return sendAppError(res, invalid(problem.message, problem.field), route.errorStatus);
  }
  res.status(500).json(errorBody(500, 'Internal server error'));
}

/** A NUL in the JSON body, named by its place in the body, else in what the route made of the request. */
function assertNoNul(request: RestRequest, variables: Record<string, unknown>): void {
  const inBody = findNul(request.body);
  if (inBody !== undefined) throw nulRefused(inBody || 'The request body');
  // Path, query and headers were checked at the edge; this catches what a route decodes (Basic credentials).
  const inVariables = findNulInVariables(variables);
  if (inVariables !== undefined) throw nulRefused(inVariables);
}

/**
 * The route's variables from the request. Operations that act as their caller refuse a caller
 * without credentials (401) whatever else is wrong with the request, so input problems of an
 * anonymous request to them are answered as what they are first: missing credentials.
 */
function variablesOf(route: RestRoute, request: RestRequest, scope: Scope): Record<string, unknown> {
  try {
    const variables = route.variables?.(request) ?? {};
    assertNoNul(request, variables);
    const longList = longListInVariables(variables);
    if (longList) throw longList;
    return variables;
  } catch (error) {
    if (isAppError(error) && !route.lenientCredentials && !isAuthenticated(scope.principal)) throw unauthenticated();
    throw error;
  }
}

interface ConnectionPage {
  nodes: unknown[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

const connectionAt = (data: Record<string, unknown>, path: readonly string[]) =>
  path.reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], data) as ConnectionPage;

/**
 * Reads a connection to its end (or until the route has enough rows), page after page, and puts
 * every row in the first answer's connection. Each page is a full run of the document, with the
 * same access checks; the first page's data is what the route answers from. The next pages start
 * after the last row read, so they skip nothing: `$offset` is the first page's only.
 */
async function wholeConnection(
  data: Record<string, unknown>,
  pages: NonNullable<RestRoute['pages']>,
  request: RestRequest,
  variables: Record<string, unknown>,
  run: (variables: Record<string, unknown>) => ExecutionResult | Promise<ExecutionResult>,
): Promise<{ data: Record<string, unknown> } | { errors: readonly GraphQLError[] }> {
  const connection = connectionAt(data, pages.path);
  const rows = [...connection.nodes];
  let info = connection.pageInfo;
  const { offset: _firstPageOnly, ...following } = variables;
  while (info.hasNextPage && !pages.enough?.(rows.length, request)) {
    const next = await run({ ...following, after: info.endCursor });
    if (next.errors?.length) return { errors: next.errors };
    const page = connectionAt(next.data ?? {}, pages.path);
    rows.push(...page.nodes);
    info = page.pageInfo;
  }
  connection.nodes = rows;
  return { data };
}

/**
 * Sends a serialised body part by part, as `res.json` would send it whole: the same headers, its
 * length counted up front. The parts wait in the corked response and leave in one write.
 */
function sendJsonText(res: Response, body: JsonText): void {
  res.type('application/json');
  res.setHeader(
    'Content-Length',
    body.parts.reduce((bytes, part) => bytes + Buffer.byteLength(part), 0),
  );
  res.cork();
  for (const part of body.parts) res.write(part);
  res.end();
}

/** How long the rest of a refused upload may take to arrive before its connection is cut. */
const DISCARD_TIMEOUT_MS = 30_000;

/**
 * After an answer given before the body was read to its end (a refused upload): reads the rest
 * into nothing, so the client can finish sending, see the answer and reuse the connection.
 * Left unread, the body would stall the connection and the client's next request with it.
 */
function discardUnreadBody(req: Request): void {
  if (req.complete || req.destroyed) return;
  req.unpipe();
  const cut = setTimeout(() => req.socket.destroy(), DISCARD_TIMEOUT_MS).unref();
  req.once('end', () => clearTimeout(cut));
  req.once('close', () => clearTimeout(cut));
  req.resume();
}

/** Passes a request its negotiated download does not serve on to the next route of the path (the JSON row). */
function negotiation(route: ContentRoute): RequestHandler {
  const negotiated = route.negotiated;
  if (!negotiated) return (_req, _res, next) => next();
  return (req, _res, next) => {
    const { format } = req.query;
    const chosen =
      format === undefined
        ? req.accepts(['application/json', negotiated.mediaType]) === negotiated.mediaType
        : format !== 'json';
    next(chosen ? undefined : 'route');
  };
}

/** Streams a download: the access decision logged before any byte is sent, refused or not. */
function downloadHandler(route: ContentRoute): RequestHandler {
  const queryOf = declaredQuery(route.doc);
  return async (req: Request, res: Response) => {
    try {
      const scope = scopeOf(res);
      scope.accessTrail.operation = `GET ${route.path}`;
      const { stream, headers } = await route
        .open(scope, req.params as Record<string, string>, queryOf(req.query))
        .finally(() => scope.accessTrail.flush(scope));
      res.status(200);
      // setHeader, not res.set: express would append a charset to the stored media type.
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      await pipeline(stream, res).catch((error: unknown) => {
        // The client left, or the store failed mid-stream: headers are gone, so end the connection.
        scopeOf(res).logger.warn({ err: error }, 'content download ended early');
        res.destroy();
      });
    } catch (error) {
      const appError = asAppError(error);
      if (appError) return sendAppError(res, appError);
      throw error;
    }
  };
}

/** What a route reads of the HTTP request: its query as the route's doc declares it (declaredQuery). */
function restRequest(req: Request, queryOf: ReturnType<typeof declaredQuery>): RestRequest {
  return {
    params: req.params as Record<string, string>,
    query: queryOf(req.query),
    headers: req.headers,
    body: req.body,
    raw: req,
  };
}

/** Runs a ServiceRoute: its answer, the access trail logged before it is sent, errors as a RestRoute's. */
function serviceRouteHandler(route: ServiceRoute, services: RouteServices): RequestHandler {
  const queryOf = declaredQuery(route.doc);
  return async (req: Request, res: Response) => {
    const scope = scopeOf(res);
    const request = restRequest(req, queryOf);
    try {
      scope.accessTrail.operation = `${route.method.toUpperCase()} ${route.path}`;
      // The access decisions are logged before the answer is sent, refused or not.
      const body = await route.answer(request, { scope, services }).finally(() => scope.accessTrail.flush(scope));
      res.status(route.status);
      sendJsonText(res, body);
    } catch (error) {
      const appError = asAppError(error);
      // As for a document's variables: a caller without credentials hears that first.
      if (appError && !isAuthenticated(scope.principal)) return sendAppError(res, unauthenticated());
      if (appError) return sendAppError(res, appError);
      throw error;
    }
  };
}

/** What runs before a route's operation: body parsing and authentication, chosen per route. */
export type EdgeFor = (route: RestRoute) => RequestHandler[];

/**
 * Builds the legacy REST API from the route table: each row runs its GraphQL operation
 * in-process on the same schema (and so the same services and rules) as /graphql.
 */
export function restCompatRouter(
  schema: GraphQLSchema,
  routes: readonly RestRoute[],
  edgeFor: EdgeFor,
  downloads: { routes: readonly ContentRoute[]; edge: RequestHandler[] },
  direct: { routes: readonly ServiceRoute[]; edge: RequestHandler[] },
  services: RouteServices,
): express.Router {
  const router = express.Router();
  const enumValues = enumValuesOf(schema);
  for (const route of downloads.routes)
    router.get(route.path, negotiation(route), ...downloads.edge, downloadHandler(route));
  // After the downloads: a download negotiated on the same path passes the JSON request on to these.
  for (const route of direct.routes)
    router[route.method](route.path, ...direct.edge, serviceRouteHandler(route, services));
  for (const route of routes) {
    const document = parse(route.document);
    const problems = validate(schema, document);
    if (problems.length)
      throw new Error(`rest-compat ${route.method.toUpperCase()} ${route.path}: ${problems[0].message}`);
    const operation = prepareOperation(schema, document);
    const queryOf = declaredQuery(route.doc);
    router[route.method](route.path, ...edgeFor(route), async (req: Request, res: Response) => {
      if (route.body === 'binary') res.once('finish', () => discardUnreadBody(req));
      const request = restRequest(req, queryOf);
      try {
        const variableValues = variablesOf(route, request, scopeOf(res));
        const scope = scopeOf(res);
        scope.accessTrail.operation = `${route.method.toUpperCase()} ${route.path}`;
        // Each run's access decisions are logged before its answer is used (refusals included).
        const run = async (variables: Record<string, unknown>) => {
          const result = await operation(scope, variables);
          await scope.accessTrail.flush(scope);
          return result;
        };
        const result = await run(variableValues);
        if (result.errors?.length) return sendExecutionErrors(res, route, result.errors, enumValues);
        let data = result.data ?? {};
        if (route.pages) {
          const whole = await wholeConnection(data, route.pages, request, variableValues, run);
          if ('errors' in whole) return sendExecutionErrors(res, route, whole.errors, enumValues);
          data = whole.data;
        }
        const reply = { header: (name: string, value: string) => res.setHeader(name, value) };
        const body = await route.respond?.(data, reply, request, { scope, services });
        res.status(route.status);
        if (body === undefined) res.end();
        else if (body instanceof JsonText) sendJsonText(res, body);
        else res.json(body);
      } catch (error) {
        const appError = asAppError(error);
        if (appError) return sendAppError(res, appError, route.errorStatus);
        throw error;
      }
    });
  }
  return router;
}
