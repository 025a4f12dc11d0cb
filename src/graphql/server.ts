import { ApolloServer, type ApolloServerPlugin, type GraphQLRequestListener } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from '../infra/logger';
import { boundedLabel, graphqlOperations } from '../infra/metrics';
import { retryAfterOf } from '../kernel/errors';
import type { Scope } from '../kernel/scope';
import { recordAccess } from './access-trail';
import { compilingGateway } from './compiling-gateway';
import { formatError, isUnexpected } from './errors';
import { requestLimits } from './cost';
import { limitRules, MAX_TOKENS } from './limits';
import { listLengthLimit } from './list-limit';

/**
 * A plugin whose hooks keep no state of a request: one listener serves them all, so a request
 * allocates nothing for it (every query pays for each plugin's listener otherwise).
 */
function everyRequest(listener: GraphQLRequestListener<Scope>): ApolloServerPlugin<Scope> {
  return { requestDidStart: async () => listener };
}

/** Logs resolver failures that are bugs (not AppErrors) with the request id, once each. */
function logUnexpectedErrors(logger: Logger): ApolloServerPlugin<Scope> {
  return everyRequest({
    async didEncounterErrors({ errors }) {
      for (const error of errors) {
        if (isUnexpected(error))
          logger.error({ err: error.originalError ?? error, path: error.path }, 'graphql resolver failed');
      }
    },
  });
}

/** Operation names are the client's choice: a bounded label set keeps /metrics from growing without end. */
const operationLabel = boundedLabel(200);
const OPERATION_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Counts operations by name, type and outcome at /metrics. */
function countOperations(): ApolloServerPlugin<Scope> {
  return everyRequest({
    async willSendResponse({ operationName, operation, response, errors }) {
      const failed =
        Boolean(errors?.length) || (response.body.kind === 'single' && Boolean(response.body.singleResult.errors));
      graphqlOperations.inc({
        operation: operationName && OPERATION_NAME.test(operationName) ? operationLabel(operationName) : 'anonymous',
        type: operation?.operation ?? 'unknown',
        outcome: failed ? 'error' : 'ok',
      });
    },
  });
}

/**
 * A refusal for a spent budget (logIn, signUp) answers HTTP 429 with Retry-After, as REST does,
 * when nothing else of the operation was answered (a client retrying the whole request then
 * repeats nothing that succeeded); the seconds to wait are in the error's extensions too.
 */
function answerRateLimits(): ApolloServerPlugin<Scope> {
  return everyRequest({
    async willSendResponse({ errors, response }) {
      const waits = (errors ?? []).map((error) => retryAfterOf(unwrapResolverError(error)));
      const retryAfter = Math.max(0, ...waits.filter((wait) => wait !== undefined));
      const answered = response.body.kind !== 'single' || response.body.singleResult.data != null;
      if (retryAfter === 0 || answered) return;
      response.http.status = 429;
      response.http.headers.set('retry-after', String(retryAfter));
    },
  });
}

export function createApolloServer(schema: GraphQLSchema, logger: Logger): ApolloServer<Scope> {
  return new ApolloServer<Scope>({
    gateway: compilingGateway(schema),
    formatError,
    validationRules: [...limitRules, listLengthLimit()],
    // graphql-js stops parsing there, so an oversized document costs no more than that.
    parseOptions: { maxTokens: MAX_TOKENS },
    introspection: true,
    // Automatic persisted queries: documents by hash, in Apollo's bounded in-memory LRU cache
    // (30 MiB), for a day; a document sent by hash still passes every request limit.
    cache: 'bounded',
    persistedQueries: { ttl: 24 * 60 * 60 },
    includeStacktraceInErrorResponses: false,
    stopOnTerminationSignals: false,
    // No HTTP caching of per-user data, and no per-field instrumentation cost for it.
    plugins: [
      logUnexpectedErrors(logger),
      countOperations(),
      answerRateLimits(),
      requestLimits(),
      // After the limits: a refused operation is never looked into.
      recordAccess(),
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      // A subgraph would otherwise time every field for any caller sending a trace header.
      ApolloServerPluginInlineTraceDisabled(),
    ],
  });
}
