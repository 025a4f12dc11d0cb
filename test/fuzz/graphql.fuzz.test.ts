import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Kind, parse } from 'graphql';
import {
  graphqlCaseArbitrary,
  graphqlExchange,
  graphqlOperations,
  type GraphqlCase,
  type GraphqlOperation,
} from '../support/fuzz/graphql-cases';
import { fuzzEach, fuzzTimeout, Fuzzer } from '../support/fuzz/harness';
import {
  nestedCaseArbitrary,
  nestedConnections,
  nestedExchange,
  type NestedConnection,
} from '../support/fuzz/nested-connection-cases';
import { idPools } from '../support/fuzz/world';

/**
 * Every root field of Query and Mutation, with variables generated from its arguments' input
 * types, from every kind of caller: no 5xx, every error carries a documented `extensions.code`
 * (docs/graphql.md, "GraphQL conventions") and a request id, a BAD_USER_INPUT names its field, never
 * INTERNAL_SERVER_ERROR, a refused operation changes nothing, and no answer names a file, the
 * database, SQL or a stack.
 */
const RUNS = 4;
/** About as many root fields as the schema has, for the timeout. */
const OPERATIONS = 80;
/** About as many connections below the root as the schema has, for the timeout. */
const NESTED_CONNECTIONS = 10;

let fuzzer: Fuzzer;
let operations: GraphqlOperation[];
let nested: NestedConnection[];

beforeAll(async () => {
  fuzzer = await Fuzzer.start();
  operations = await graphqlOperations(fuzzer.app);
  nested = await nestedConnections(fuzzer.app);
}, 60_000);
afterAll(async () => {
  await fuzzer?.stop();
});

const nameOf = (operation: GraphqlOperation) => `${operation.kind} ${operation.field}`;

/** The root fields of the committed schema (emitted from the code), as `query me`, `mutation signUp`. */
function committedRootFields(): string[] {
  const document = parse(fs.readFileSync(path.join(__dirname, '..', '..', 'schema.graphql'), 'utf8'));
  return document.definitions.flatMap((definition) =>
    definition.kind === Kind.OBJECT_TYPE_DEFINITION && ['Query', 'Mutation'].includes(definition.name.value)
      ? (definition.fields ?? []).map((field) => `${definition.name.value.toLowerCase()} ${field.name.value}`)
      : [],
  );
}

it('derives cases for every root field of Query and Mutation', () => {
  expect(operations.map(nameOf)).toEqual(expect.arrayContaining(committedRootFields()));
});

it(
  'holds the properties for every operation under generated variables',
  () =>
    fuzzEach(
      'test/fuzz/graphql',
      operations,
      nameOf,
      async (operation) => {
        const world = await fuzzer.ensureWorld();
        return fc.asyncProperty(graphqlCaseArbitrary(operation, idPools(world)), (fuzz) =>
          fuzzer.check(() => graphqlExchange(fuzzer, operation, fuzz)),
        );
      },
      RUNS,
    ),
  fuzzTimeout(RUNS, OPERATIONS),
);

/**
 * Every connection below the root, read for up to 40 parents (repeats included) under generated
 * paging and filters, then paged on with its cursor's key forged: the same properties, a
 * ceiling on SQL statements whatever the number of parents, and a forged key refused as
 * BAD_USER_INPUT, never an INTERNAL_SERVER_ERROR.
 */
it(
  'holds the properties for every nested connection over many parents and forged cursors',
  () =>
    fuzzEach(
      'test/fuzz/graphql',
      nested,
      (connection) => `nested ${connection.name}`,
      async (connection) => {
        const world = await fuzzer.ensureWorld();
        return fc.asyncProperty(nestedCaseArbitrary(connection, idPools(world)), (fuzz) =>
          fuzzer.check(() => nestedExchange(fuzzer, connection, fuzz)),
        );
      },
      RUNS,
    ),
  fuzzTimeout(RUNS, NESTED_CONNECTIONS),
);

/** Counterexamples the fuzzing found, kept as fixed cases held to the same properties. */
describe('counterexamples', () => {
  function fixedCase(field: string, fuzz: Partial<GraphqlCase>): Promise<void> {
    const operation = operations.find((candidate) => candidate.field === field);
    if (!operation) throw new Error(`the schema has no root field ${field}`);
    const fixed: GraphqlCase = { caller: 'anonymous', bearer: false, variables: {}, ...fuzz };
    return fuzzer.check(() => graphqlExchange(fuzzer, operation, fixed));
  }

  // docs/graphql.md, GraphQL conventions: a BAD_USER_INPUT error names the argument path (extensions.field).
  it('names the field of an empty server secret', () =>
    fixedCase('serverLogIn', { variables: { input: { name: 'a@a.aa', secret: '' } } }));

  it('names the field of an empty password', () =>
    fixedCase('logIn', { variables: { input: { username: 'a@a.aa', password: '' } } }));
});
