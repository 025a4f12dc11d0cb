import fc from 'fast-check';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { SCALAR_SCHEMAS } from '../../../rest-compat/openapi/graphql-input';
import type { TestApp } from '../app';
import { answerText, type Exchange, type Fuzzer } from './harness';
import { valueOf, type JsonSchema } from './values';
import { CALLERS, type Caller, type IdPools, type World } from './world';

/**
 * GraphQL fuzz cases derived from the schema the running service introspects: for every root
 * field of Query and Mutation, a document selecting its scalars (two levels deep) and variables
 * for every argument generated from the argument's input type.
 */
export interface GraphqlOperation {
  kind: 'query' | 'mutation';
  field: string;
  document: string;
  /** Each argument's input type as a JSON Schema, and whether it is required. */
  args: { name: string; schema: JsonSchema; required: boolean }[];
}

/** Nested fields are selected only below the root's own type, and only those without arguments. */
const MAX_SELECTION_DEPTH = 2;

function selectionOf(type: GraphQLOutputType, depth: number): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (isUnionType(named)) {
    // Members' fields of one name must have one type, or the document does not validate.
    const typesByName = new Map<string, Set<string>>();
    for (const member of named.getTypes())
      for (const field of Object.values(member.getFields()))
        typesByName.set(field.name, (typesByName.get(field.name) ?? new Set()).add(String(field.type)));
    const members = named
      .getTypes()
      .map((member) => {
        const leaves = Object.values(member.getFields()).filter(
          (field) =>
            field.args.length === 0 && isLeafType(getNamedType(field.type)) && typesByName.get(field.name)!.size === 1,
        );
        return `... on ${member.name} { ${leaves.map((field) => field.name).join(' ') || '__typename'} }`;
      })
      .join(' ');
    return `{ __typename ${members} }`;
  }
  if (!isObjectType(named)) return '{ __typename }';
  const fields = Object.values(named.getFields()).filter((field) => field.args.length === 0);
  const parts = fields.flatMap((field) => {
    if (isLeafType(getNamedType(field.type))) return [field.name];
    if (depth >= MAX_SELECTION_DEPTH) return [];
    return [`${field.name} ${selectionOf(field.type, depth + 1)}`];
  });
  return `{ __typename ${parts.join(' ')} }`;
}

function operationOf(
  kind: 'query' | 'mutation',
  field: GraphQLField<unknown, unknown>,
  scalars: Record<string, JsonSchema>,
): GraphqlOperation {
  const definitions = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const document = `${kind} Fuzz${definitions ? `(${definitions})` : ''} { ${field.name}${args ? `(${args})` : ''} ${selectionOf(field.type, 1)} }`;
  return {
    kind,
    field: field.name,
    document,
    args: field.args.map((arg: GraphQLArgument) => ({
      name: arg.name,
      schema: inputSchemaOf(arg.type, scalars),
      required: isNonNullType(arg.type),
    })),
  };
}

/**
 * The federation's entity representations (`_Any`): an entity type's name with its key fields,
 * which the id pools fill in (`userId`, `id`, `clinicId`).
 */
function representationSchema(schema: GraphQLSchema): JsonSchema {
  const entities = schema.getType('_Entity');
  const names = isUnionType(entities) ? entities.getTypes().map((type) => type.name) : [];
  const key = { type: 'string' };
  return {
    type: 'object',
    properties: { __typename: { enum: names }, id: key, userId: key, clinicId: key },
    required: ['__typename'],
  };
}

/** The schema the running service introspects, as a client builds it. */
export async function introspectedSchema(app: TestApp): Promise<GraphQLSchema> {
  const response = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  return buildClientSchema(((await response.json()) as { data: IntrospectionQuery }).data);
}

/** Each scalar's values as a JSON Schema, the federation's representations (`_Any`) included. */
export const scalarSchemasOf = (schema: GraphQLSchema): Record<string, JsonSchema> => ({
  ...SCALAR_SCHEMAS,
  _Any: representationSchema(schema),
});

export async function graphqlOperations(app: TestApp): Promise<GraphqlOperation[]> {
  const schema = await introspectedSchema(app);
  const scalars = scalarSchemasOf(schema);
  const roots = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const;
  return roots.flatMap(([kind, root]) =>
    Object.values(root?.getFields() ?? {}).map((field) => operationOf(kind, field, scalars)),
  );
}

/** The JSON Schema of an input type as GraphQL variables spell it (enum values by their GraphQL names). */
export function inputSchemaOf(type: GraphQLInputType, scalars: Record<string, JsonSchema>): JsonSchema {
  const inner = isNonNullType(type) ? type.ofType : type;
  let schema: JsonSchema;
  if (isListType(inner)) schema = { type: 'array', items: inputSchemaOf(inner.ofType, scalars) };
  else if (isEnumType(inner)) schema = { enum: inner.getValues().map((value) => value.name) };
  else if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields());
    schema = {
      type: 'object',
      properties: Object.fromEntries(fields.map((field) => [field.name, inputSchemaOf(field.type, scalars)])),
      required: fields.filter((field) => isNonNullType(field.type)).map((field) => field.name),
    };
  } else schema = scalars[inner.name] ?? {};
  return isNonNullType(type) || schema.enum ? schema : { anyOf: [schema, { type: 'null' }] };
}

export interface GraphqlCase {
  caller: Caller;
  bearer: boolean;
  variables: Record<string, unknown>;
}

export function graphqlCaseArbitrary(operation: GraphqlOperation, pools: IdPools): fc.Arbitrary<GraphqlCase> {
  const model = Object.fromEntries(operation.args.map((arg) => [arg.name, valueOf(arg.schema, arg.name, pools)]));
  const required = operation.args.filter((arg) => arg.required).map((arg) => arg.name);
  const variables = fc.oneof(
    { weight: 6, arbitrary: fc.record(model, { requiredKeys: required }) },
    { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
  ) as fc.Arbitrary<Record<string, unknown>>;
  return fc.record({ caller: fc.constantFrom(...CALLERS), bearer: fc.boolean(), variables });
}

export interface GraphqlAnswer {
  status: number;
  headers: Headers;
  text: string;
  body:
    | { data?: Record<string, unknown> | null; errors?: { message?: unknown; extensions?: Record<string, unknown> }[] }
    | undefined;
  /** What the request carried, as text. */
  request: string;
}

export async function sendGraphqlCase(
  app: TestApp,
  world: World,
  operation: GraphqlOperation,
  fuzz: GraphqlCase,
): Promise<GraphqlAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const token = world.tokens[fuzz.caller];
  if (token)
    headers[fuzz.bearer ? 'authorization' : 'x-tidepool-session-token'] = fuzz.bearer ? `Bearer ${token}` : token;
  const request = JSON.stringify({ query: operation.document, variables: fuzz.variables });
  const response = await fetch(`${app.url}/graphql`, { method: 'POST', headers, body: request });
  const text = await response.text();
  let body: GraphqlAnswer['body'];
  try {
    body = JSON.parse(text) as GraphqlAnswer['body'];
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body, request };
}

/** The codes docs/graphql.md documents, less INTERNAL_SERVER_ERROR (a bug), plus malformed-document ones. */
const DOCUMENTED_CODES = new Set([
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'BAD_USER_INPUT',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'UNAVAILABLE',
  'QUERY_TOO_COMPLEX',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
]);

export function errorProblems(answer: GraphqlAnswer): string[] {
  if (!answer.body) return ['the answer is not JSON'];
  return (answer.body.errors ?? []).flatMap((error) => {
    const code = error.extensions?.code;
    const problems: string[] = [];
    if (typeof code !== 'string' || !DOCUMENTED_CODES.has(code)) problems.push(`an error with code ${String(code)}`);
    if (typeof error.extensions?.requestId !== 'string') problems.push(`a ${String(code)} error without requestId`);
    if (code === 'BAD_USER_INPUT' && typeof error.extensions?.field !== 'string')
      problems.push(`a BAD_USER_INPUT error that names no field: ${String(error.message)}`);
    return problems;
  });
}

/** Sends a case and tells what the transport's own properties find wrong with its answer. */
export async function graphqlExchange(
  fuzzer: Fuzzer,
  operation: GraphqlOperation,
  fuzz: GraphqlCase,
): Promise<Exchange> {
  const answer = await sendGraphqlCase(fuzzer.app, fuzzer.world, operation, fuzz);
  const refused = Boolean(answer.body?.errors?.length) && answer.body?.data?.[operation.field] == null;
  return {
    status: answer.status,
    outcome: `${answer.status} ${String(answer.body?.errors?.[0]?.extensions?.code ?? 'ok')}`,
    answer: answerText(answer.status, answer.headers, answer.text),
    request: answer.request,
    refused,
    mutating: operation.kind === 'mutation',
    problems: errorProblems(answer),
  };
}
