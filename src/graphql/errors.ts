import { asAppError } from '../infra/failures';
import { requestScope } from '../infra/logger';
import { isAppError, type AppError, type ErrorCode } from '../kernel/errors';
import { truncate } from '../kernel/validation';
import { InputRuleError } from './scalars';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';

/**
 * The `extensions.code` values a GraphQL client sees (docs/graphql.md lists them), one per kernel
 * AppError code. The REST layer maps the same AppError codes to HTTP statuses in its own table.
 */
export const GRAPHQL_ERROR_CODE: Record<ErrorCode, string> = {
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  // A credential change without the current password: refused, like any other missing right.
  PASSWORD_REQUIRED: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  INVALID: 'BAD_USER_INPUT',
  CONFLICT: 'CONFLICT',
  TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'BAD_USER_INPUT',
  DIGEST_MISMATCH: 'BAD_USER_INPUT',
  RATE_LIMITED: 'RATE_LIMITED',
  UNAVAILABLE: 'UNAVAILABLE',
};

/** Refusals of the request limits (depth, aliases, root fields, tokens, cost). */
export const QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX';

/** The id of the request being served, which its log lines carry too. */
const requestIdOf = (): Record<string, string> => {
  const requestId = requestScope.getStore()?.requestId;
  return requestId === undefined ? {} : { requestId };
};

/**
 * The body /graphql answers when the HTTP edge refuses a request before Apollo runs (a body that
 * does not parse, a NUL, a list over its bound): the same codes and request id as Apollo's errors.
 */
export function edgeErrorBody(error: AppError): { errors: GraphQLFormattedError[] } {
  const extensions = { ...error.details, code: GRAPHQL_ERROR_CODE[error.code], ...requestIdOf() };
  return { errors: [{ message: error.message, extensions }] };
}

/** Codes graphql-js and Apollo produce for malformed operations; they pass through unchanged. */
const CLIENT_ERROR_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  QUERY_TOO_COMPLEX,
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/** Codes whose graphql-js messages can repeat an input value; they are rewritten (describeInputError). */
const INPUT_ERROR_CODES = new Set(['GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);

/** A refused input as a client may see it: the field and the rule, never the value. */
export interface InputProblem {
  message: string;
  field?: string;
}

/** Values of an enum type by name, to list the allowed ones (REST clients do not know the type). */
export type EnumValues = (typeName: string) => readonly string[] | undefined;

/** `rule` follows the field's name (`is required`); `sentence` rules stand after a colon. */
type Rule = { field?: string; rule: string; sentence?: boolean };

const ENUM_REFUSAL = /^Enum "(\w+)" cannot represent|does not exist in "(\w+)" enum/;

/** graphql-js coercion messages (coerceInputValue and the built-in scalars) → the rule they state. */
function ruleOf(inner: string, enumValues: EnumValues): Rule | undefined {
  let match: RegExpExecArray | null;
  if ((match = /^Field "(\w+)" of required type "[^"]*" was not provided\.$/.exec(inner)))
    return { field: match[1], rule: 'is required' };
  if ((match = /^Field "([\s\S]*)" is not defined by type "[^"]*"\./.exec(inner)))
    return { field: truncate(match[1]), rule: 'is not a known field' };
  if ((match = /^Field "(\w+)" must be non-null\.$/.exec(inner))) return { field: match[1], rule: 'must not be null' };
  if (/^Expected non-nullable type "[^"]*" not to be null\.$/.test(inner)) return { rule: 'must not be null' };
  if (/^Expected type "[^"]*" to be an object\.$/.test(inner)) return { rule: 'must be an object' };
  if (/^String cannot represent/.test(inner)) return { rule: 'must be a string' };
  if (/^Int cannot represent/.test(inner)) return { rule: 'must be an integer from -2147483648 to 2147483647' };
  if (/^Float cannot represent/.test(inner)) return { rule: 'must be a number' };
  if (/^Boolean cannot represent/.test(inner)) return { rule: 'must be a boolean' };
  if (/^ID cannot represent/.test(inner)) return { rule: 'must be a string or an integer' };
  if ((match = ENUM_REFUSAL.exec(inner))) {
    const type = match[1] ?? match[2];
    const values = enumValues(type);
    // A refused enum value is named when it is a name (a permission, a status), never other text.
    const given = /^Value "([A-Za-z_][\w-]{0,63})" does not exist/.exec(inner)?.[1];
    const rule = values ? `must be one of ${values.join(', ')}` : `must be a value of the ${type} enum`;
    return { rule: given === undefined ? rule : `${rule}, not "${given}"` };
  }
  if (/^Expected type "[^"]*"\./.test(inner)) return { rule: 'has an invalid value' };
  return undefined;
}

const join = (base: string, field: string | undefined) =>
  field === undefined ? base : base ? `${base}.${field}` : field;

/**
 * Rewrites graphql-js's messages about a refused input so they name the field and the rule but
 * never repeat the value (`Variable "$input" got invalid value { password: "…" }; …` would echo a
 * password back, and on REST name the operation's variables and types). The field is named
 * inside its variable (`termsAccepted`, `emails[1]`), or as the variable when it is the value.
 * Messages that are not about an input value come back as they are.
 */
export function describeInputError(
  message: string,
  originalError: unknown,
  enumValues: EnumValues = () => undefined,
): InputProblem {
  let match: RegExpExecArray | null;
  if ((match = /^Variable "\$(\w+)" of required type "[^"]*" was not provided\.$/.exec(message)))
    return { message: `${match[1]} is required`, field: match[1] };
  if ((match = /^Variable "\$(\w+)" of non-null type "[^"]*" must not be null\.$/.exec(message)))
    return { message: `${match[1]} must not be null`, field: match[1] };
  if ((match = /^Variable "\$(\w+)" got invalid value /.exec(message))) {
    const variable = match[1];
    const inner = originalError instanceof Error ? originalError.message : '';
    const head = inner && message.endsWith(`; ${inner}`) ? message.slice(0, -(inner.length + 2)) : message;
    const path = / at "([\w.[\]]+)"$/.exec(head)?.[1] ?? variable;
    const base = path.startsWith(`${variable}.`) ? path.slice(variable.length + 1) : path;
    const described: Rule =
      originalError instanceof InputRuleError
        ? { rule: originalError.rule }
        : (ruleOf(inner, enumValues) ??
          // Other scalars' own refusals (Upload's) state a rule without the value; graphql-js's do not.
          (originalError instanceof GraphQLError && inner
            ? { rule: inner, sentence: true }
            : { rule: 'has an invalid value' }));
    const field =
      described.field === undefined ? base : path === variable ? described.field : join(base, described.field);
    return { message: `${field}${described.sentence ? ':' : ''} ${described.rule}`, field };
  }
  if (originalError instanceof InputRuleError) return { message: originalError.message };
  // Literals in the document (validation): the value is the client's own text, but may still be a secret.
  if ((match = /^Expected value of type "([^"]*)", found /.exec(message)))
    return { message: `Expected a value of type "${match[1]}" here` };
  if ((match = /^(String|Int|Float|Boolean|ID) cannot represent[^:]*/.exec(message))) return { message: match[0] };
  if (ENUM_REFUSAL.test(message)) return { message: `The value ${ruleOf(message, enumValues)!.rule}` };
  return { message };
}

/** Codes this service's own validation rules set (limits.ts, list-limit.ts), kept through Apollo. */
const RULE_CODES = new Set([QUERY_TOO_COMPLEX, 'BAD_USER_INPUT']);

/**
 * The code and field one of this service's validation rules gave its refusal. Apollo re-codes
 * validation-rule errors GRAPHQL_VALIDATION_FAILED (keeping the rule's error as the original)
 * and parse errors GRAPHQL_PARSE_FAILED, where graphql-js's token budget is a request limit.
 */
function ruleRefusal(error: unknown): { code: string; field?: string } | undefined {
  const extensionsOf = (value: unknown) =>
    (value as { extensions?: { code?: unknown; field?: unknown } } | undefined)?.extensions;
  for (const candidate of [error, (error as { originalError?: unknown }).originalError]) {
    const extensions = extensionsOf(candidate);
    if (typeof extensions?.code === 'string' && RULE_CODES.has(extensions.code) && candidate instanceof GraphQLError) {
      const field = typeof extensions.field === 'string' ? { field: extensions.field } : {};
      // A rule's own refusal, not a graphql-js coercion error (those go through describeInputError).
      if (candidate.originalError === undefined || candidate !== error) return { code: extensions.code, ...field };
    }
  }
  const tokens = /Document contains more tha[nt] \d+ tokens/.test((error as Error).message ?? '');
  if (extensionsOf(error)?.code === 'GRAPHQL_PARSE_FAILED' && tokens) return { code: QUERY_TOO_COMPLEX };
  return undefined;
}

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
      extensions: { ...original.details, code: GRAPHQL_ERROR_CODE[original.code], ...requestIdOf() },
    };
  }
  const refusal = ruleRefusal(error);
  if (refusal) {
    return { message: formatted.message, locations: formatted.locations, extensions: { ...refusal, ...requestIdOf() } };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && INPUT_ERROR_CODES.has(code)) {
    const problem = describeInputError(formatted.message, (error as { originalError?: unknown }).originalError);
    const named = problem.field ?? formatted.extensions?.field;
    const field = typeof named === 'string' ? { field: named } : {};
    return {
      message: problem.message,
      locations: formatted.locations,
      extensions: { code, ...field, ...requestIdOf() },
    };
  }
  if (typeof code === 'string' && CLIENT_ERROR_CODES.has(code)) {
    return { message: formatted.message, locations: formatted.locations, extensions: { code, ...requestIdOf() } };
  }
  return {
    message: 'Internal server error',
    path: formatted.path,
    extensions: { code: 'INTERNAL_SERVER_ERROR', ...requestIdOf() },
  };
}

/**
 * Whether an error deserves a log line with the request id: bugs (not AppErrors), and
 * dependencies that failed (answered UNAVAILABLE, with the details clients do not see).
 */
export function isUnexpected(error: unknown): boolean {
  const unwrapped = unwrapResolverError(error);
  if (isAppError(unwrapped)) return unwrapped.code === 'UNAVAILABLE' && unwrapped.cause !== undefined;
  const mapped = asAppError(unwrapped);
  if (mapped) return mapped.code === 'UNAVAILABLE';
  const code = (error as { extensions?: { code?: unknown } }).extensions?.code;
  return !(typeof code === 'string' && CLIENT_ERROR_CODES.has(code));
}
