import fc from 'fast-check';
import { getNamedType, isObjectType, type GraphQLField, type GraphQLSchema } from 'graphql';
import type { TestApp } from '../app';
import {
  errorProblems,
  inputSchemaOf,
  introspectedSchema,
  scalarSchemasOf,
  sendGraphqlCase,
  type GraphqlAnswer,
  type GraphqlCase,
  type GraphqlOperation,
} from './graphql-cases';
import { answerText, type Exchange, type Fuzzer } from './harness';
import { anyShortText, BOUNDARY_NUMBERS, hostileValue, valueOf } from './values';
import { CALLERS, type IdPools } from './world';

/**
 * Fuzz cases for the connections below the root (`User.blobs`, `Clinic.patients`): one of them
 * read for many parents at once, reached through `_entities` (every type with a nested
 * connection is an entity), parents repeated, with generated paging and filter arguments. Then
 * the answer's cursor with its key forged (other types, other lengths) is sent back as `after`.
 */
export interface NestedConnection extends GraphqlOperation {
  /** `User.blobs`. */
  name: string;
  /** The entity's key field, which `$parents` fill in. */
  key: string;
  type: string;
}

/**
 * The most SQL statements one case may cost, however many parents it names: a statement per
 * parent (`users(ids: [me × 100]) { accessLog }` once ran 502) breaks it.
 */
export const MAX_STATEMENTS = 40;

/** The entity types and their key fields, from the subgraph's SDL (`type User @key(fields: "userId")`). */
async function entityKeys(app: TestApp): Promise<Map<string, string>> {
  const response = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ _service { sdl } }' }),
  });
  const { data } = (await response.json()) as { data: { _service: { sdl: string } } };
  return new Map(
    [...data._service.sdl.matchAll(/type (\w+) @key\(fields: "(\w+)"\)/g)].map(([, type, key]) => [type!, key!]),
  );
}

/** Every `*Connection` field of a type that is not a root, as `type.field`. */
function nestedFields(schema: GraphQLSchema): [string, GraphQLField<unknown, unknown>][] {
  const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()];
  return Object.values(schema.getTypeMap()).flatMap((type) =>
    isObjectType(type) && !type.name.startsWith('__') && !roots.includes(type)
      ? Object.values(type.getFields())
          .filter((field) => getNamedType(field.type).name.endsWith('Connection'))
          .map((field): [string, GraphQLField<unknown, unknown>] => [type.name, field])
      : [],
  );
}

export async function nestedConnections(app: TestApp): Promise<NestedConnection[]> {
  const schema = await introspectedSchema(app);
  const scalars = scalarSchemasOf(schema);
  const keys = await entityKeys(app);
  return nestedFields(schema).map(([type, field]) => {
    const key = keys.get(type);
    if (!key) throw new Error(`${type}.${field.name}: ${type} is no single-key entity, so no case reaches its parents`);
    const definitions = field.args.map((arg) => `, $${arg.name}: ${String(arg.type)}`).join('');
    const args = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
    const selection = `${field.name}(${args}) { totalCount nodes { __typename } pageInfo { endCursor hasNextPage } }`;
    return {
      name: `${type}.${field.name}`,
      type,
      key,
      kind: 'query',
      field: '_entities',
      document: `query Fuzz($parents: [_Any!]!${definitions}) { _entities(representations: $parents) { ... on ${type} { ${selection} } } }`,
      args: field.args.map((arg) => ({
        name: arg.name,
        schema: inputSchemaOf(arg.type, scalars),
        required: arg.type.toString().endsWith('!'),
      })),
    };
  });
}

/** What a forged cursor's key holds: the other types a list's key may be compared with. */
const keyPart = fc.oneof(
  fc.constantFrom<unknown>(...BOUNDARY_NUMBERS, null, true, [], {}, ''),
  anyShortText,
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
);

export interface NestedCase extends GraphqlCase {
  /** The parents' ids, repeats included. */
  parents: string[];
  /** The key the answer's cursor is sent back with. */
  forgedKey: unknown[];
}

/** The ids a type's parents are named by. */
const poolOf = (type: string, pools: IdPools) => (type === 'Clinic' ? pools.clinics : pools.users);

/**
 * Arguments that mostly hold, so most cases read pages (and send their cursors back forged):
 * paging mostly within its bounds, optional filters and orders mostly omitted, now and then a
 * wrong value; other arguments as their input types say.
 */
function argumentOf(arg: NestedConnection['args'][number], pools: IdPools): fc.Arbitrary<unknown> {
  if (arg.name === 'first')
    return fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 100 }) }, { weight: 1, arbitrary: hostileValue });
  if (arg.name === 'after')
    return fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: anyShortText });
  if (arg.required) return valueOf(arg.schema, arg.name, pools);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: valueOf(arg.schema, arg.name, pools) },
  );
}

export function nestedCaseArbitrary(connection: NestedConnection, pools: IdPools): fc.Arbitrary<NestedCase> {
  const parent = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...poolOf(connection.type, pools)) },
    { weight: 1, arbitrary: fc.constantFrom(...pools.all) },
  );
  const model = Object.fromEntries(connection.args.map((arg) => [arg.name, argumentOf(arg, pools)]));
  const required = connection.args.filter((arg) => arg.required).map((arg) => arg.name);
  return fc.record({
    caller: fc.constantFrom(...CALLERS),
    bearer: fc.boolean(),
    variables: fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>>,
    parents: fc.array(parent, { minLength: 1, maxLength: 40 }),
    forgedKey: fc.array(keyPart, { maxLength: 3 }),
  });
}

/** The properties of one answer: the transport's own, and the ceiling on SQL statements. */
function problemsOf(answer: GraphqlAnswer): string[] {
  const statements = Number(answer.headers.get('x-sql-statements'));
  return [
    ...errorProblems(answer),
    ...(statements > MAX_STATEMENTS ? [`ran ${statements} SQL statements (at most ${MAX_STATEMENTS})`] : []),
  ];
}

/** The first cursor an answer holds, and its parts. */
function firstCursor(answer: GraphqlAnswer, field: string): unknown[] | null {
  const parents = (answer.body?.data?._entities ?? []) as (Record<
    string,
    { pageInfo?: { endCursor?: string } }
  > | null)[];
  const cursor = parents.map((parent) => parent?.[field]?.pageInfo?.endCursor).find(Boolean);
  return cursor ? (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[]) : null;
}

/** Sends a case, then its answer's cursor with the key forged, and tells what either broke. */
export async function nestedExchange(
  fuzzer: Fuzzer,
  connection: NestedConnection,
  fuzz: NestedCase,
): Promise<Exchange> {
  const parents = fuzz.parents.map((id) => ({ __typename: connection.type, [connection.key]: id }));
  const send = (variables: Record<string, unknown>) =>
    sendGraphqlCase(fuzzer.app, fuzzer.world, connection, { ...fuzz, variables: { ...variables, parents } });
  const answers = [await send(fuzz.variables)];
  const cursor = firstCursor(answers[0]!, connection.name.split('.')[1]!);
  if (cursor) {
    const forged = Buffer.from(JSON.stringify([cursor[0], cursor[1], fuzz.forgedKey])).toString('base64url');
    answers.push(await send({ ...fuzz.variables, after: forged }));
  }
  const worst = answers.reduce((worse, answer) => (answer.status > worse.status ? answer : worse));
  return {
    status: worst.status,
    outcome: `${answers[0]!.status} ${String(answers[0]!.body?.errors?.[0]?.extensions?.code ?? 'ok')}`,
    answer: answers.map((answer) => answerText(answer.status, answer.headers, answer.text)).join('\n\n'),
    request: answers.map((answer) => answer.request).join('\n\n'),
    refused: false,
    mutating: false,
    problems: answers.flatMap((answer, index) =>
      problemsOf(answer).map((problem) => (index ? `forged cursor: ${problem}` : problem)),
    ),
  };
}
