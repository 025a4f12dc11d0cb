import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { DATE_TIME_RANGE, isDateTime, isInDateTimeRange } from '../kernel/validation';

/**
 * A scalar's refusal of an input value: `rule` says what a value of `typeName` must be and never
 * repeats the value (it may be a password typed into the wrong field). Error formatting puts the
 * field's name before the rule (src/graphql/errors.ts).
 */
export class InputRuleError extends GraphQLError {
  constructor(
    readonly typeName: string,
    readonly rule: string,
  ) {
    super(`${typeName} ${rule}`);
    this.name = 'InputRuleError';
  }
}

const ISO_RULE = 'must be an ISO 8601 date-time with an offset, such as 2024-01-02T03:04:05Z';

function toDate(value: unknown): Date {
  if (typeof value !== 'string' || !isDateTime(value)) throw new InputRuleError('DateTime', ISO_RULE);
  const date = new Date(value);
  if (!isInDateTimeRange(date)) throw new InputRuleError('DateTime', `must lie ${DATE_TIME_RANGE.description}`);
  return date;
}

/** ISO 8601 date-time with an explicit offset in (see DATE_TIME_RANGE); UTC with milliseconds out. */
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
    if (ast.kind !== Kind.STRING) throw new InputRuleError('DateTime', ISO_RULE);
    return toDate(ast.value);
  },
});
