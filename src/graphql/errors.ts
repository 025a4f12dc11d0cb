import { asAppError } from '../infra/failures';
import { unwrapResolverError } from '@apollo/server/errors';
import type { GraphQLFormattedError } from 'graphql';

/** Codes graphql-js and Apollo produce for malformed operations; they pass through unchanged. */
const CLIENT_ERROR_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/**
 * The GraphQL half of "one error family mapped once per transport": AppError codes go into
 * `extensions.code`; anything unexpected is hidden behind a generic message (and logged by the
 * server plugin with the request id).
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = asAppError(unwrapResolverError(error));
  if (original) {
    return {
      message: original.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { ...original.details, code: original.code },
    };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && CLIENT_ERROR_CODES.has(code)) {
    return { message: formatted.message, locations: formatted.locations, extensions: { code } };
  }
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

export function isUnexpected(error: unknown): boolean {
  if (asAppError(unwrapResolverError(error))) return false;
  const code = (error as { extensions?: { code?: unknown } }).extensions?.code;
  return !(typeof code === 'string' && CLIENT_ERROR_CODES.has(code));
}
