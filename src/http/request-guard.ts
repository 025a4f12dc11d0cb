import type { NextFunction, Request, Response } from 'express';
import { invalid, type AppError } from '../kernel/errors';
import {
  findNul,
  findNulInVariables,
  longListInVariables,
  MAX_JSON_DEPTH,
  nestedDeeperThan,
  NUL,
  nulRefused,
  tooDeep,
} from '../kernel/validation';
import { requestedPath } from './request-context';

/** Answers a refused request in the format of the API it was sent to. */
export type InputErrorResponder = (error: AppError, req: Request, res: Response) => void;

/**
 * What no route can read, refused before any route sees the request: a path whose
 * percent-encoding is not UTF-8 (`%ff`, the overlong `%C0%AF`; routers would throw while
 * decoding its parameters), and a NUL character in the path, a query parameter or a header
 * (PostgreSQL cannot store one, and no identifier, name or date holds one).
 */
export function requestProblem(req: Request): AppError | undefined {
  const path = requestedPath(req);
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return invalid('The path is not valid percent-encoded UTF-8', 'path');
  }
  if (decoded.includes(NUL)) return invalid('The path must not contain NUL characters', 'path');
  const queryStart = req.originalUrl.indexOf('?');
  if (queryStart !== -1) {
    // URLSearchParams decodes as leniently as the query parsers of express and oidc-provider.
    for (const [name, value] of new URLSearchParams(req.originalUrl.slice(queryStart + 1))) {
      if (name.includes(NUL)) return invalid('A query parameter name must not contain NUL characters', 'query');
      if (value.includes(NUL)) return invalid(`query parameter "${name}" must not contain NUL characters`, name);
    }
  }
  for (const [name, value] of Object.entries(req.headers)) {
    if (findNul(value) !== undefined) return invalid(`header "${name}" must not contain NUL characters`, name);
  }
  return undefined;
}

export function refuseUnreadableRequests(respond: InputErrorResponder) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const problem = requestProblem(req);
    if (problem) return respond(problem, req, res);
    next();
  };
}

/** A `\u0000` or `\u{0}` escape in a GraphQL string literal (not an escaped backslash before `u`). */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u(?:0000|\{0+\})/;

function parsedVariables(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined; // Apollo answers malformed variables itself.
  }
}

/** The GraphQL request's fields (POST body or GET query), variables parsed when sent as text. */
function graphqlRequest(req: Request): Record<string, unknown> | undefined {
  const request = (req.method === 'GET' ? req.query : req.body) as Record<string, unknown> | undefined;
  if (!request || typeof request !== 'object') return undefined;
  return { ...request, variables: parsedVariables(request.variables) };
}

/**
 * Variables or extensions nested too deeply to walk: those of a JSON body were measured when it
 * was parsed, those of a query string or a multipart request only here.
 */
function tooDeepProblem(req: Request): AppError | undefined {
  const request = graphqlRequest(req);
  if (!request) return undefined;
  for (const part of ['variables', 'extensions'] as const) {
    const value = part === 'extensions' ? parsedVariables(request.extensions) : request[part];
    if (nestedDeeperThan(value, MAX_JSON_DEPTH)) return tooDeep(part);
  }
  return undefined;
}

/** The NUL in a GraphQL request (POST body or GET query), named as the field it is in. */
export function graphqlNulProblem(req: Request): AppError | undefined {
  const request = graphqlRequest(req);
  if (!request) return undefined;
  const { query, operationName, variables, extensions } = request;
  if (typeof query === 'string' && (query.includes(NUL) || ESCAPED_NUL.test(query))) return nulRefused('query');
  if (typeof operationName === 'string' && operationName.includes(NUL)) return nulRefused('operationName');
  const inVariables = findNulInVariables(variables);
  if (inVariables !== undefined) return nulRefused(inVariables || 'variables');
  if (findNul(parsedVariables(extensions)) !== undefined) return nulRefused('extensions');
  return undefined;
}

/**
 * Refuses a GraphQL request with a NUL in any text it carries (variables, or a string literal
 * of the document), or with a list over MAX_LIST_ENTRIES in its variables, naming the field:
 * every input is covered at once, on JSON and multipart requests alike, before any resolver runs.
 */
export function refuseBadGraphQLInput(respond: (error: AppError, res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const problem =
      tooDeepProblem(req) ?? graphqlNulProblem(req) ?? longListInVariables(graphqlRequest(req)?.variables);
    if (problem) return respond(problem, res);
    next();
  };
}
