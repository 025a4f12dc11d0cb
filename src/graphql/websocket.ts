import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Authenticator } from '../auth/authenticator';
import type { Orm } from '../infra/database/orm';
import type { Logger } from '../infra/logger';
import { isAppError } from '../kernel/errors';
import { isAuthenticated, type Principal } from '../kernel/principal';
import { AccessTrail, type AccessSink } from '../kernel/access-trail';
import { LoaderRegistry, type Scope } from '../kernel/scope';
import { rootFieldsOf } from './access-trail';
import { CostCache, queryCost } from './cost';
import { formatError, isUnexpected } from './errors';
import { limitRules, MAX_QUERY_COST, MAX_TOKENS } from './limits';
import { listLengthLimit } from './list-limit';

/** A subscribe message larger than this closes the socket (ws answers 1009): documents are small. */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** Subscriptions one connection may hold at once; a dashboard needs a handful. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 20;
/** setTimeout's limit; a token living longer is re-checked then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Connection {
  principal: Principal;
  subscriptions: number;
  expiry?: NodeJS.Timeout;
}

export interface GraphqlWebSocketDependencies {
  schema: GraphQLSchema;
  authenticator: Authenticator;
  orm: Orm;
  logger: Logger;
  accessSink: AccessSink | null;
}

export interface GraphqlWebSocket {
  /** Takes over an HTTP upgrade request for /graphql; any other path is refused. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every connection (1001, going away) and stops accepting new ones. */
  close(): Promise<void>;
}

/**
 * The credentials of a connection: the `connection_init` parameters (browsers cannot set
 * headers on a WebSocket) over the upgrade request's own headers, under their header names.
 */
function credentialHeaders(request: IncomingMessage, params: Readonly<Record<string, unknown>> | undefined) {
  const headers: IncomingHttpHeaders = {
    authorization: request.headers.authorization,
    'x-tidepool-session-token': request.headers['x-tidepool-session-token'],
  };
  for (const [name, value] of Object.entries(params ?? {}))
    if (typeof value === 'string') headers[name.toLowerCase()] = value;
  return headers;
}

const refusal = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });

/** graphql-js's own parse and validation errors, under the codes Apollo gives them on POST /graphql. */
const withCode = (errors: readonly GraphQLError[], code: string) =>
  errors.map((error) =>
    error.extensions.code
      ? error
      : new GraphQLError(error.message, {
          nodes: error.nodes,
          source: error.source,
          positions: error.positions,
          extensions: { code },
        }),
  );

/**
 * GraphQL subscriptions over WebSocket (graphql-ws's graphql-transport-ws protocol) on /graphql:
 * authenticated once at connection time with the same tokens as HTTP, closed with 4401 when the
 * token expires or stops being accepted; each operation passes the HTTP endpoint's limits
 * (tokens, depth, aliases, list lengths, cost) and only subscriptions are served here.
 */
export function graphqlWebSocket({
  schema,
  authenticator,
  orm,
  logger,
  accessSink,
}: GraphqlWebSocketDependencies): GraphqlWebSocket {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const costs = new CostCache();
  const rules = [...specifiedRules, ...limitRules, listLengthLimit()];

  // An error the event stream threw (access gone) reaches here wrapped without a path: its own error says what it is.
  const formatted = (errors: readonly GraphQLError[]) =>
    errors.map((error) => {
      const cause = error.path === undefined && error.originalError ? error.originalError : error;
      if (isUnexpected(cause))
        logger.error({ err: error.originalError ?? error, path: error.path }, 'subscription failed');
      return formatError(error.toJSON(), cause);
    });

  const operationArgs = (
    schemaDocument: DocumentNode,
    payload: { operationName?: string | null; variables?: unknown },
  ) => {
    const errors = validate(schema, schemaDocument, rules);
    if (errors.length) return withCode(errors, 'GRAPHQL_VALIDATION_FAILED');
    const operation = getOperationAST(schemaDocument, payload.operationName ?? undefined);
    if (operation?.operation !== 'subscription')
      return [
        refusal(
          'Only subscriptions are served over WebSocket; send queries and mutations to POST /graphql',
          'BAD_REQUEST',
        ),
      ];
    const variables = (payload.variables ?? undefined) as Record<string, unknown> | undefined;
    const name = payload.operationName ?? undefined;
    try {
      const cost = costs.of(schemaDocument, name, variables, () => queryCost(schema, schemaDocument, variables, name));
      if (cost > MAX_QUERY_COST)
        return [refusal(`Query cost ${cost} exceeds the maximum of ${MAX_QUERY_COST}`, 'QUERY_TOO_COMPLEX')];
    } catch (error) {
      if (error instanceof GraphQLError) return [error];
      throw error;
    }
    return null;
  };

  useServer<Record<string, unknown> | undefined, { connection: Connection }>(
    {
      schema,
      onConnect: async (ctx) => {
        const { socket, request } = ctx.extra;
        let principal: Principal;
        try {
          principal = await authenticator.principal(credentialHeaders(request, ctx.connectionParams));
        } catch (error) {
          if (!isAppError(error)) throw error;
          socket.close(CloseCode.Unauthorized, error.message.slice(0, 120));
          return false;
        }
        if (!isAuthenticated(principal)) {
          socket.close(CloseCode.Unauthorized, 'Send an access token in the connection parameters');
          return false;
        }
        const connection: Connection = { principal, subscriptions: 0 };
        if (principal.expiresAt !== null) {
          const left = Math.min(MAX_TIMER_MS, Math.max(0, principal.expiresAt * 1000 - Date.now()));
          connection.expiry = setTimeout(() => socket.close(CloseCode.Unauthorized, 'Token expired'), left).unref();
        }
        ctx.extra.connection = connection;
        return true;
      },
      onClose: (ctx) => clearTimeout(ctx.extra.connection?.expiry),
      onSubscribe: (ctx, _id, payload): ExecutionArgs | readonly GraphQLError[] => {
        const connection = ctx.extra.connection!;
        if (connection.subscriptions >= MAX_SUBSCRIPTIONS_PER_CONNECTION)
          return [refusal(`At most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection`, 'BAD_REQUEST')];
        let document: DocumentNode;
        try {
          document = parse(payload.query, { maxTokens: MAX_TOKENS });
        } catch (error) {
          if (error instanceof GraphQLError) return withCode([error], 'GRAPHQL_PARSE_FAILED');
          throw error;
        }
        const refused = operationArgs(document, payload);
        if (refused) return refused;
        connection.subscriptions += 1;
        const scope: Scope = {
          principal: connection.principal,
          em: orm.em.fork(),
          loaders: new LoaderRegistry(),
          requestId: randomUUID(),
          remoteAddress: ctx.extra.request.socket.remoteAddress ?? 'unknown',
          logger,
          accessTrail: new AccessTrail(accessSink),
        };
        scope.accessTrail.operation = rootFieldsOf(document, payload.operationName);
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: scope,
        };
      },
      // The subscription's access decision (the events follow from it) is logged once it is made.
      onOperation: async (_ctx, _id, _payload, args) => {
        const scope = args.contextValue as Scope;
        await scope.accessTrail.flush(scope);
      },
      onComplete: (ctx) => {
        if (ctx.extra.connection) ctx.extra.connection.subscriptions -= 1;
      },
      onError: (_ctx, _id, _payload, errors) => formatted(errors),
      onNext: async (ctx, _id, _payload, args, result: ExecutionResult) => {
        // What the event was read with goes to the access log before it is sent, as an HTTP answer's does.
        const scope = args.contextValue as Scope;
        await scope.accessTrail.flush(scope);
        // A session ended since the connection authenticated (logout, password change): nothing more is sent.
        const connection = ctx.extra.connection;
        if (connection && !authenticator.isLive(connection.principal)) {
          // Said in place of the event, then the connection closes (after this message is sent).
          setImmediate(() => ctx.extra.socket.close(CloseCode.Unauthorized, 'Session ended'));
          return { errors: [{ message: 'Session has ended; log in again', extensions: { code: 'UNAUTHENTICATED' } }] };
        }
        return result.errors ? { ...result, errors: formatted(result.errors) } : undefined;
      },
    },
    sockets,
  );

  return {
    upgrade(req, socket, head) {
      if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/graphql') {
        socket.destroy();
        return;
      }
      sockets.handleUpgrade(req, socket, head, (ws) => sockets.emit('connection', ws, req));
    },
    close: () =>
      new Promise((resolve) => {
        for (const client of sockets.clients) client.close(1001, 'Server shutting down');
        sockets.close(() => resolve());
      }),
  };
}
