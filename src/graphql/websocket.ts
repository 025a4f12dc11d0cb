import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  GraphQLError,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
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
import { formatError, isUnexpected } from './errors';
import { subscriptionRefusals } from './subscription-checks';

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

/**
 * The connection of a socket whose credentials name a live, signed-in principal, timed to close
 * (4401) when its token expires; null once the socket was closed with 4401 and the reason.
 */
async function authenticateConnection(
  authenticator: Authenticator,
  { socket, request }: { socket: { close(code: number, reason: string): void }; request: IncomingMessage },
  params: Readonly<Record<string, unknown>> | undefined,
): Promise<Connection | null> {
  let principal: Principal;
  try {
    principal = await authenticator.principal(credentialHeaders(request, params));
  } catch (error) {
    if (!isAppError(error)) throw error;
    socket.close(CloseCode.Unauthorized, error.message.slice(0, 120));
    return null;
  }
  if (!isAuthenticated(principal)) {
    socket.close(CloseCode.Unauthorized, 'Send an access token in the connection parameters');
    return null;
  }
  const connection: Connection = { principal, subscriptions: 0 };
  if (principal.expiresAt !== null) {
    const left = Math.min(MAX_TIMER_MS, Math.max(0, principal.expiresAt * 1000 - Date.now()));
    connection.expiry = setTimeout(() => socket.close(CloseCode.Unauthorized, 'Token expired'), left).unref();
  }
  return connection;
}

/**
 * Errors as clients get them. An error the event stream threw (access gone) arrives wrapped
 * without a path: its own error says what it is.
 */
function formatErrors(logger: Logger) {
  return (errors: readonly GraphQLError[]): GraphQLFormattedError[] =>
    errors.map((error) => {
      const cause = error.path === undefined && error.originalError ? error.originalError : error;
      if (isUnexpected(cause))
        logger.error({ err: error.originalError ?? error, path: error.path }, 'subscription failed');
      return formatError(error.toJSON(), cause);
    });
}

/**
 * What goes out for one event: its reads go to the access log first, as an HTTP answer's do; a
 * session ended since the connection authenticated (logout, password change) gets an
 * UNAUTHENTICATED error in place of the event, and the connection closes after it.
 */
async function eventToSend(
  authenticator: Authenticator,
  extra: { connection?: Connection; socket: { close(code: number, reason: string): void } },
  scope: Scope,
  result: ExecutionResult,
  formatted: (errors: readonly GraphQLError[]) => GraphQLFormattedError[],
): Promise<FormattedExecutionResult | undefined> {
  await scope.accessTrail.flush(scope);
  const { connection } = extra;
  if (connection && !authenticator.isLive(connection.principal)) {
    setImmediate(() => extra.socket.close(CloseCode.Unauthorized, 'Session ended'));
    return { errors: [{ message: 'Session has ended; log in again', extensions: { code: 'UNAUTHENTICATED' } }] };
  }
  return result.errors ? { ...result, errors: formatted(result.errors) } : undefined;
}

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
  const refusals = subscriptionRefusals(schema);

  const formatted = formatErrors(logger);

  useServer<Record<string, unknown> | undefined, { connection: Connection }>(
    {
      schema,
      onConnect: async (ctx) => {
        const connection = await authenticateConnection(authenticator, ctx.extra, ctx.connectionParams);
        if (!connection) return false;
        ctx.extra.connection = connection;
        return true;
      },
      onClose: (ctx) => clearTimeout(ctx.extra.connection?.expiry),
      onSubscribe: (ctx, _id, payload): ExecutionArgs | readonly GraphQLError[] => {
        const connection = ctx.extra.connection!;
        if (connection.subscriptions >= MAX_SUBSCRIPTIONS_PER_CONNECTION)
          return [
            new GraphQLError(`At most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection`, {
              extensions: { code: 'BAD_REQUEST' },
            }),
          ];
        const document = refusals(payload);
        if (!('kind' in document)) return document;
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
      onNext: (ctx, _id, _payload, args, result: ExecutionResult) =>
        eventToSend(authenticator, ctx.extra, args.contextValue as Scope, result, formatted),
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
