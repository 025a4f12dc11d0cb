import { buildSchema, execute, parse, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import type { Scope } from '../kernel/scope';
import { prepareOperation } from './compiled-operation';

const typeDefs = `
  type Period { average: Float low: Float }
  type Patient { id: ID! name: String period(days: Int!): Period }
  type Query { patients(first: Int!, after: String): [Patient!]! }
  type Mutation { rename(id: ID!, name: String!): Patient }
`;

/** A schema whose resolvers fail the way services do (an error with a code) and read the context. */
function testSchema(): GraphQLSchema {
  const schema = buildSchema(typeDefs);
  const patients = [
    { id: 'a', name: 'Ann', periods: { 14: { average: 7.25, low: 0.01 } } },
    { id: 'b', name: 'Bo', periods: {} },
  ];
  const query = schema.getQueryType()!.getFields();
  query.patients.resolve = (_root, args: { first: number }, context: { calls: string[] }) => {
    context.calls.push('patients');
    if (args.first > 10) throw Object.assign(new Error('first must be at most 10'), { code: 'INVALID' });
    return patients.slice(0, args.first);
  };
  const patient = (schema.getType('Patient') as GraphQLObjectType).getFields();
  patient.period.resolve = (root: (typeof patients)[number], args: { days: number }) =>
    Promise.resolve((root.periods as Record<number, unknown>)[args.days] ?? null);
  schema.getMutationType()!.getFields().rename.resolve = (_root, args: { id: string; name: string }) => ({
    id: args.id,
    name: args.name,
  });
  return schema;
}

const scope = () => ({ calls: [] as string[] }) as unknown as Scope & { calls: string[] };

describe('prepareOperation', () => {
  const schema = testSchema();
  const document = parse(`query ($first: Int!, $skipName: Boolean!) {
    patients(first: $first) { id name @skip(if: $skipName) two: period(days: 14) { average low } none: period(days: 1) { average } } }`);

  it('answers a query exactly as graphql-js does, aliases, directives and async fields included', async () => {
    const prepared = prepareOperation(schema, document);
    for (const variables of [
      { first: 2, skipName: false },
      { first: 1, skipName: true },
    ]) {
      const expected = await execute({ schema, document, variableValues: variables, contextValue: scope() });
      expect(await prepared(scope(), variables)).toEqual(expected);
    }
  });

  it('passes the scope to resolvers as their context', async () => {
    const context = scope();
    await prepareOperation(schema, document)(context, { first: 1, skipName: false });
    expect(context.calls).toEqual(['patients']);
  });

  it('refuses bad variables with graphql-js’s own message, before any resolver runs', async () => {
    const context = scope();
    const result = await prepareOperation(schema, document)(context, { first: 'many', skipName: false });
    const expected = await execute({ schema, document, variableValues: { first: 'many', skipName: false } });
    expect(result.errors?.map((error) => error.message)).toEqual(expected.errors?.map((error) => error.message));
    expect(result.errors?.[0]?.message).toMatch(/\$first.*Int cannot represent/);
    expect(context.calls).toEqual([]);
  });

  it('keeps a resolver’s own error, with its path, as the REST layer maps it', async () => {
    const result = await prepareOperation(schema, document)(scope(), { first: 11, skipName: false });
    expect(result.data).toBeNull();
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0]!.path).toEqual(['patients']);
    expect(result.errors![0]!.originalError).toMatchObject({ code: 'INVALID', message: 'first must be at most 10' });
  });

  it('runs mutations too', async () => {
    const mutation = parse('mutation ($id: ID!) { rename(id: $id, name: "Cy") { id name } }');
    expect(await prepareOperation(schema, mutation)(scope(), { id: 'c' })).toEqual({
      data: { rename: { id: 'c', name: 'Cy' } },
    });
  });
});
