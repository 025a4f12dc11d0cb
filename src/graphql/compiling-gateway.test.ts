import { ApolloServer } from '@apollo/server';
import { describe, expect, it } from '@jest/globals';
import { buildSchema, type GraphQLObjectType } from 'graphql';
import type { Scope } from '../kernel/scope';
import { compilingGateway } from './compiling-gateway';

/** Patients whose `period` fails for one of them, with an error that carries no extensions. */
function testSchema() {
  const schema = buildSchema(`
    type Period { average: Float }
    type Patient { id: ID! name: String period(days: Int!): Period }
    type Query { patients(first: Int!): [Patient!]! }
    type Mutation { rename(id: ID!, name: String!): Patient }
  `);
  const patients = [
    { id: 'a', name: 'Ann', average: 7.25 },
    { id: 'b', name: 'Bo', average: null },
  ];
  schema.getQueryType()!.getFields().patients.resolve = (_root, args: { first: number }) =>
    patients.slice(0, args.first);
  (schema.getType('Patient') as GraphQLObjectType).getFields().period.resolve = async (root: { average: unknown }) => {
    if (root.average === null) throw new Error('no readings');
    return { average: root.average };
  };
  schema.getMutationType()!.getFields().rename.resolve = (_root, args: { id: string; name: string }) => args;
  return schema;
}

async function started() {
  const server = new ApolloServer<Scope>({
    gateway: compilingGateway(testSchema()),
    // What the service's formatError reads: the code, and the resolver's error behind it.
    formatError: (formatted, error) => ({
      ...formatted,
      extensions: { ...formatted.extensions, original: String((error as { originalError?: unknown }).originalError) },
    }),
  });
  await server.start();
  return server;
}

const run = async (server: ApolloServer<Scope>, query: string, variables: Record<string, unknown>) => {
  const response = await server.executeOperation({ query, variables }, { contextValue: {} as Scope });
  return response.body.kind === 'single' ? response.body.singleResult : undefined;
};

describe('compilingGateway', () => {
  const query = `query List($first: Int!) { patients(first: $first) { id name two: period(days: 14) { average } } }`;

  it('answers a query run again (compiled then) exactly as the first time, failed fields included', async () => {
    const server = await started();
    const first = await run(server, query, { first: 2 });
    expect(first?.errors?.[0]).toMatchObject({
      message: 'no readings',
      path: ['patients', 1, 'two'],
      locations: [{ line: 1, column: 62 }],
      extensions: { code: 'INTERNAL_SERVER_ERROR', original: 'Error: no readings' },
    });
    // Compiled from its 20th run: the answers after it are the compiled query's.
    for (let again = 0; again < 25; again += 1) expect(await run(server, query, { first: 2 })).toEqual(first);
    await server.stop();
  });

  it('refuses bad variables of a compiled query as the first run did', async () => {
    const server = await started();
    for (let time = 0; time < 20; time += 1) await run(server, query, { first: 1 });
    const refused = await run(server, query, { first: 'two' });
    expect(refused?.errors?.[0]?.message).toBe(
      'Variable "$first" got invalid value "two"; Int cannot represent non-integer value: "two"',
    );
    expect(refused?.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    await server.stop();
  });

  it('runs mutations and named operations of a document as asked', async () => {
    const server = await started();
    const document = `query One { patients(first: 1) { id } } mutation Rename { rename(id: "a", name: "Al") { name } }`;
    for (let time = 0; time < 25; time += 1) {
      const one = await server.executeOperation(
        { query: document, operationName: 'One' },
        { contextValue: {} as Scope },
      );
      const renamed = await server.executeOperation(
        { query: document, operationName: 'Rename' },
        { contextValue: {} as Scope },
      );
      expect(one.body.kind === 'single' && one.body.singleResult.data).toEqual({ patients: [{ id: 'a' }] });
      expect(renamed.body.kind === 'single' && renamed.body.singleResult.data).toEqual({ rename: { name: 'Al' } });
    }
    await server.stop();
  });
});
