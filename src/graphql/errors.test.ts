import { describe, expect, it } from '@jest/globals';
import {
  execute,
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  parse,
  validate,
  GraphQLError,
} from 'graphql';
import { AppError } from '../kernel/errors';
import { describeInputError, edgeErrorBody, formatError, GRAPHQL_ERROR_CODE, QUERY_TOO_COMPLEX } from './errors';
import { DateTimeScalar } from './scalars';

const Status = new GraphQLEnumType({ name: 'Status', values: { created: {}, available: {} } });
const Input = new GraphQLInputObjectType({
  name: 'SignUpInput',
  fields: {
    username: { type: new GraphQLNonNull(GraphQLString) },
    password: { type: new GraphQLNonNull(GraphQLString) },
    emails: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))) },
    termsAccepted: { type: DateTimeScalar },
    status: { type: Status },
    age: { type: GraphQLInt },
    verified: { type: GraphQLBoolean },
  },
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLBoolean } } }),
  mutation: new GraphQLObjectType({
    name: 'Mutation',
    fields: {
      signUp: { type: GraphQLBoolean, args: { input: { type: new GraphQLNonNull(Input) } }, resolve: () => true },
      logIn: {
        type: GraphQLBoolean,
        args: { username: { type: new GraphQLNonNull(GraphQLString) }, id: { type: GraphQLID } },
        resolve: () => true,
      },
    },
  }),
});

const SECRET = 'hunter2-secret';
const valid = { username: 'a@b.org', password: SECRET, emails: ['a@b.org'] };

/** graphql-js's own error for these variables, as execute (REST) and Apollo (/graphql) see it. */
function coercionError(document: string, variables: Record<string, unknown>): GraphQLError {
  const result = execute({ schema, document: parse(document), variableValues: variables }) as {
    errors?: GraphQLError[];
  };
  expect(result.errors?.length).toBeGreaterThan(0);
  return result.errors![0];
}

const signUp = (input: unknown) =>
  coercionError('mutation ($input: SignUpInput!) { signUp(input: $input) }', { input });
const describe_ = (error: GraphQLError) =>
  describeInputError(error.message, error.originalError, (name) =>
    name === 'Status' ? ['created', 'available'] : undefined,
  );

describe('describeInputError on variables', () => {
  it.each([
    ['a missing field', { username: 'a@b.org', password: SECRET }, { field: 'emails', message: 'emails is required' }],
    ['an unknown field', { ...valid, agee: 3 }, { field: 'agee', message: 'agee is not a known field' }],
    [
      'a number for a string',
      { ...valid, username: 12345678 },
      { field: 'username', message: 'username must be a string' },
    ],
    ['a null item', { ...valid, emails: [null] }, { field: 'emails[0]', message: 'emails[0] must not be null' }],
    [
      'a bad enum',
      { ...valid, status: 'gone' },
      { field: 'status', message: 'status must be one of created, available, not "gone"' },
    ],
    [
      'a huge integer',
      { ...valid, age: 2 ** 40 },
      { field: 'age', message: expect.stringMatching(/^age must be an integer/) },
    ],
    [
      'a date in year 0',
      { ...valid, termsAccepted: '0000-01-01T00:00:00Z' },
      {
        field: 'termsAccepted',
        message: expect.stringMatching(/^termsAccepted must lie between 0001-01-01T00:00:00Z/),
      },
    ],
    [
      'a date that is none',
      { ...valid, termsAccepted: 'yesterday' },
      { field: 'termsAccepted', message: expect.stringMatching(/^termsAccepted must be an ISO 8601 date-time/) },
    ],
    ['a list for the input', [valid], { field: 'input', message: 'input must be an object' }],
  ])('names %s and the rule, never the value or the types', (_case, input, expected) => {
    const error = signUp(input);
    expect(error.message).toMatch(/Variable "\$input"/);
    const problem = describe_(error);
    expect(problem).toEqual(expected);
    expect(problem.message).not.toMatch(new RegExp(`${SECRET}|\\$input|SignUpInput|String|Variable`));
  });

  it('names a top-level variable by its name', () => {
    const document = 'mutation ($username: String!, $id: ID) { logIn(username: $username, id: $id) }';
    expect(describe_(coercionError(document, {}))).toEqual({ field: 'username', message: 'username is required' });
    expect(describe_(coercionError(document, { username: null }))).toEqual({
      field: 'username',
      message: 'username must not be null',
    });
    expect(describe_(coercionError(document, { username: 'u', id: 1.5 }))).toEqual({
      field: 'id',
      message: 'id must be a string or an integer',
    });
  });

  it('names an enum value only when it is a name', () => {
    expect(describe_(signUp({ ...valid, status: `${SECRET} !` })).message).toBe(
      'status must be one of created, available',
    );
  });

  it("passes other scalars' own rules through after the field", () => {
    const Upload = new GraphQLScalarType({
      name: 'Upload',
      parseValue: () => {
        throw new GraphQLError('Upload values must be files of a multipart request');
      },
    });
    const withUpload = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: { put: { type: GraphQLBoolean, args: { file: { type: Upload } }, resolve: () => true } },
      }),
    });
    const result = execute({
      schema: withUpload,
      document: parse('query ($file: Upload) { put(file: $file) }'),
      variableValues: { file: 'not a file' },
    }) as { errors: GraphQLError[] };
    expect(describe_(result.errors[0])).toEqual({
      field: 'file',
      message: 'file: Upload values must be files of a multipart request',
    });
  });

  it('does not read a path out of a value that looks like one', () => {
    const problem = describe_(signUp({ ...valid, username: ['a at "input.password"', 'b'] }));
    expect(problem).toEqual({ field: 'username', message: 'username must be a string' });
  });
});

describe('describeInputError on literals', () => {
  const literalErrors = (document: string) => validate(schema, parse(document));

  it('never repeats a literal value', () => {
    const [wrongType] = literalErrors(`mutation { logIn(username: 12345) }`);
    expect(describe_(wrongType).message).toBe('String cannot represent a non string value');
    const [badDate] = literalErrors(
      `mutation { signUp(input: {username: "a", password: "${SECRET}", emails: [], termsAccepted: "0000-01-01T00:00:00Z"}) }`,
    );
    expect(describe_(badDate).message).toMatch(/^DateTime must lie between/);
    const [enumValue] = literalErrors(
      `mutation { signUp(input: {username: "a", password: "p", emails: [], status: gone}) }`,
    );
    // An enum value is a name the client chose from a list, so it is named back.
    expect(describe_(enumValue).message).toBe('The value must be one of created, available, not "gone"');
    for (const error of [wrongType, badDate]) expect(describe_(error).message).not.toMatch(/12345|0000-|hunter2/);
  });

  it('leaves other messages as they are', () => {
    const [missing] = literalErrors('mutation { signUp(input: {username: "a", emails: []}) }');
    expect(describe_(missing).message).toBe(missing.message);
  });
});

describe('formatError', () => {
  const located = (original: Error) => new GraphQLError(original.message, { path: ['field'], originalError: original });

  it.each([
    [new AppError('INVALID', 'username must be an email address', { field: 'username' }), 'BAD_USER_INPUT'],
    [new AppError('TOO_LARGE', 'The content is larger than the limit'), 'PAYLOAD_TOO_LARGE'],
    [new AppError('DIGEST_MISMATCH', 'The digest differs', { field: 'digestMD5' }), 'BAD_USER_INPUT'],
    [new AppError('PASSWORD_REQUIRED', 'Confirm with the current password'), 'FORBIDDEN'],
    [new AppError('NOT_FOUND', 'Blob x does not exist'), 'NOT_FOUND'],
  ])('answers %p with the GraphQL code %s, keeping its field', (error, code) => {
    const formatted = formatError({ message: error.message, path: ['field'] }, located(error));
    expect(formatted).toEqual({
      message: error.message,
      path: ['field'],
      extensions: { ...error.details, code },
    });
  });

  it('answers each kernel code with one of the documented GraphQL codes', () => {
    const documented = ['UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'BAD_USER_INPUT', 'CONFLICT'];
    documented.push('PAYLOAD_TOO_LARGE', 'UNAVAILABLE', 'RATE_LIMITED');
    expect(Object.values(GRAPHQL_ERROR_CODE).every((code) => documented.includes(code))).toBe(true);
  });

  it('keeps the code a request-limit rule gave, and hides anything unexpected', () => {
    const rule = new GraphQLError('Query has 31 aliases, more than 30', { extensions: { code: QUERY_TOO_COMPLEX } });
    const wrapped = new GraphQLError(rule.message, {
      originalError: rule,
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect(formatError({ message: rule.message, extensions: wrapped.extensions }, wrapped).extensions).toEqual({
      code: QUERY_TOO_COMPLEX,
    });
    const bug = located(new Error('select * from users where secret = 1'));
    expect(formatError({ message: bug.message, path: ['field'] }, bug)).toEqual({
      message: 'Internal server error',
      path: ['field'],
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
  });
});

describe('edgeErrorBody', () => {
  it('answers a refusal at the HTTP edge with the GraphQL code and the field', () => {
    expect(edgeErrorBody(new AppError('INVALID', 'query must not contain NUL characters', { field: 'query' }))).toEqual(
      {
        errors: [
          { message: 'query must not contain NUL characters', extensions: { code: 'BAD_USER_INPUT', field: 'query' } },
        ],
      },
    );
  });
});
