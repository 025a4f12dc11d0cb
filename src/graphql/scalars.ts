import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { AppError } from '../kernel/errors';
import { parseDateTime } from '../kernel/validation';

function toDate(value: unknown): Date {
  if (typeof value !== 'string')
    throw new GraphQLError('DateTime must be an ISO 8601 string such as 2024-01-02T03:04:05Z');
  try {
    return parseDateTime(value, 'value');
  } catch (error) {
    throw new GraphQLError(error instanceof AppError ? error.message : String(error));
  }
}

/** ISO 8601 date-time with an explicit offset in; UTC with milliseconds out. */
export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'An ISO 8601 date-time in UTC, e.g. 2024-01-02T03:04:05.000Z',
  serialize: (value) => {
    const date = value instanceof Date ? value : new Date(value as string);
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime cannot represent an invalid date');
    return date.toISOString();
  },
  parseValue: toDate,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { nodes: ast });
    return toDate(ast.value);
  },
});
