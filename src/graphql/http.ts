import { HeaderMap, type ApolloServer, type HTTPGraphQLRequest, type HTTPGraphQLResponse } from '@apollo/server';
import type { Request, Response } from 'express';
import { getOperationAST, Kind, parse, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import type { Scope } from '../kernel/scope';
import type { AppError } from '../kernel/errors';
import { edgeErrorBody, QUERY_TOO_COMPLEX } from './errors';
import { multipartBodyRead } from './multipart';
import { MAX_RESPONSE_BYTES } from './limits';

/**
 * Hands an HTTP request whose body is already parsed and whose Scope is built (res.locals.scope)
 * to Apollo, and writes Apollo's answer. Apollo's own express integration does the same but
 * re-parses the whole URL with the legacy `url.parse` on every request; this sits on the hot
 * path of every dashboard query, so it only looks for the query string.
 */
export function graphqlHttpHandler(apollo: ApolloServer<Scope>) {
  apollo.assertStarted('graphqlHttpHandler()');
  return async (req: Request, res: Response): Promise<void> => {
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const queryStart = req.url.indexOf('?');
    const httpGraphQLRequest: HTTPGraphQLRequest = {
      method: req.method,
      headers,
      search: queryStart === -1 ? '' : req.url.slice(queryStart),
      body: req.body as unknown,
    };
    const answer = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest,
      context: async () => res.locals.scope as Scope,
    });
    for (const [name, value] of answer.headers) res.setHeader(name, value);
    res.statusCode = answer.status ?? 200;
    const bodyFault = await multipartBodyRead(req);
    if (bodyFault) return answerWithBodyFault(res, answer.body, bodyFault);
    if (answer.body.kind === 'complete') {
      const bytes = Buffer.byteLength(answer.body.string);
      if (bytes > MAX_RESPONSE_BYTES) return refuseOversized(res, bytes);
      res.end(answer.body.string);
      return;
    }
    for await (const chunk of answer.body.asyncIterator) res.write(chunk);
    res.end();
  };
}

/**
 * The last guard on the answer's size, after the cost limit that keeps it from being built
 * without bound: checked here, where Apollo's serialized body is at hand, rather than in a
 * plugin, which would have to serialize it a second time.
 */
function refuseOversized(res: Response, bytes: number): void {
  (res.locals.scope as Scope).logger.warn({ bytes, max: MAX_RESPONSE_BYTES }, 'graphql answer over its size budget');
  const message = `The answer would be ${bytes} bytes, more than the maximum of ${MAX_RESPONSE_BYTES}; ask for fewer fields or smaller pages`;
  const requestId = (res.locals.scope as Scope).requestId;
  res.status(400).json({ errors: [{ message, extensions: { code: QUERY_TOO_COMPLEX, requestId } }] });
}

/**
 * A multipart body found cut off or malformed once its operation had run: 400. What the operation
 * did with the parts before the fault stays in the answer beside the fault, so a client sees it.
 */
function answerWithBodyFault(res: Response, body: HTTPGraphQLResponse['body'], fault: AppError): void {
  const [faultError] = edgeErrorBody(fault).errors;
  res.status(400);
  if (body.kind !== 'complete') return void res.json({ errors: [faultError] });
  const answer = JSON.parse(body.string) as { errors?: unknown[] };
  res.json({ ...answer, errors: [...(answer.errors ?? []), faultError] });
}

function parsed(query: string): DocumentNode | undefined {
  try {
    return parse(query);
  } catch {
    return undefined;
  }
}

/** Whether `operation` is a mutation whose every root field is one of `fields`. */
export function onlyMutationOf(
  operation: OperationDefinitionNode | null | undefined,
  fields: ReadonlySet<string>,
): boolean {
  return (
    operation?.operation === 'mutation' &&
    operation.selectionSet.selections.every(
      (selection) => selection.kind === Kind.FIELD && fields.has(selection.name.value),
    )
  );
}

/**
 * Whether the request's operation is a mutation whose every root field is one of `fields`. Parses
 * the document, so it is meant for rare paths (a token that failed), not every request.
 */
export function asksOnlyFor(fields: ReadonlySet<string>) {
  return (req: Request): boolean => {
    const { query, operationName } = (req.body ?? {}) as { query?: unknown; operationName?: unknown };
    const document = typeof query === 'string' ? parsed(query) : undefined;
    const name = typeof operationName === 'string' ? operationName : undefined;
    return onlyMutationOf(document && getOperationAST(document, name), fields);
  };
}
