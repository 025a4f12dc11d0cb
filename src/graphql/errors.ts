import { asAppError } from '../infra/failures';
import { isAppError } from '../kernel/errors';
import { truncate } from '../kernel/validation';
import { InputRuleError } from './scalars';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';

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
  if (typeof code === 'string' && INPUT_ERROR_CODES.has(code)) {
    const problem = describeInputError(formatted.message, (error as { originalError?: unknown }).originalError);
    const field = problem.field === undefined ? {} : { field: problem.field };
    return { message: problem.message, locations: formatted.locations, extensions: { code, ...field } };
  }
  if (typeof code === 'string' && CLIENT_ERROR_CODES.has(code)) {
    return { message: formatted.message, locations: formatted.locations, extensions: { code } };
  }
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
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
