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

/** What a GraphQL request carries (POST body or GET query), variables and extensions parsed once. */
interface GraphQLInput {
  query: unknown;
  operationName: unknown;
  variables: unknown;
  extensions: unknown;
}

function graphqlInput(req: Request): GraphQLInput | undefined {
  const request = (req.method === 'GET' ? req.query : req.body) as Record<string, unknown> | undefined;
  if (!request || typeof request !== 'object') return undefined;
  return {
    query: request.query,
    operationName: request.operationName,
    variables: parsedVariables(request.variables),
    extensions: parsedVariables(request.extensions),
  };
}

/**
 * What no GraphQL input may hold, first problem first: variables or extensions nested too deeply
 * to walk (a JSON body was measured when it was parsed; a query string or a multipart request
 * only here), a NUL in any text (variables, or a string literal of the document), a list over
 * MAX_LIST_ENTRIES in the variables. Each names the field it is in.
 */
function graphqlInputProblem({ query, operationName, variables, extensions }: GraphQLInput): AppError | undefined {
  if (nestedDeeperThan(variables, MAX_JSON_DEPTH)) return tooDeep('variables');
  if (nestedDeeperThan(extensions, MAX_JSON_DEPTH)) return tooDeep('extensions');
  if (typeof query === 'string' && (query.includes(NUL) || ESCAPED_NUL.test(query))) return nulRefused('query');
  if (typeof operationName === 'string' && operationName.includes(NUL)) return nulRefused('operationName');
  const inVariables = findNulInVariables(variables);
  if (inVariables !== undefined) return nulRefused(inVariables || 'variables');
  if (findNul(extensions) !== undefined) return nulRefused('extensions');
  return longListInVariables(variables);
}

/**
 * Refuses a GraphQL request whose input no resolver could take (see graphqlInputProblem), on
 * JSON and multipart requests alike, before any resolver runs.
 */
export function refuseBadGraphQLInput(respond: (error: AppError, res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const input = graphqlInput(req);
    const problem = input && graphqlInputProblem(input);
    if (problem) return respond(problem, res);
    next();
  };
}
