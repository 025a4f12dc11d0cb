import { printSubgraphSchema } from '@apollo/subgraph';
import { lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { buildSchema, type PubSub } from 'type-graphql';
import { federatedSchema, type EntityBinding } from './federation';
import { DateTimeScalar } from './scalars';

/** A resolver class and the instance (with its services) that serves it. */
export type ResolverBinding = [resolverClass: Function, instance: object];

/**
 * Builds the schema as a Federation 2 subgraph: type-graphql types and resolvers (wired with
 * their dependencies) and a reference resolver per entity.
 */
export async function buildIsletSchema(
  bindings: ResolverBinding[],
  entities: readonly EntityBinding[],
  pubSub: PubSub,
): Promise<GraphQLSchema> {
  const instances = new Map(bindings);
  const [first, ...rest] = bindings.map(([resolverClass]) => resolverClass);
  const schema = await buildSchema({
    resolvers: [first, ...rest],
    container: { get: (resolverClass: Function) => instances.get(resolverClass) },
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    pubSub,
    validate: false,
    // Federation directives (`@key`) are defined by the subgraph build, not known to type-graphql.
    skipCheck: true,
  });
  // type-graphql names the root types but cannot describe them; the playground shows these first.
  Object.assign(schema.getQueryType()!, { description: ROOT_DESCRIPTIONS.query });
  Object.assign(schema.getMutationType()!, { description: ROOT_DESCRIPTIONS.mutation });
  Object.assign(schema.getSubscriptionType()!, { description: ROOT_DESCRIPTIONS.subscription });
  return federatedSchema(schema, entities);
}

const ROOT_DESCRIPTIONS = {
  query:
    'What a caller can read: its own account (`me`), accounts, shares, blobs and device logs it may see. Lists that can grow are connections paged with `first` (1 to 100) and `after`.',
  mutation: 'What a caller can change. Each mutation takes one `input` argument and returns a payload named after it.',
  subscription:
    'What a dashboard can follow live, over WebSocket on /graphql (the graphql-transport-ws protocol of graphql-ws): send the access token as `Authorization: Bearer …` in the connection parameters. The connection closes (4401) when the token expires; reconnect with a fresh one.',
};

/**
 * The SDL committed as schema.graphql: the subgraph's own types with their `@key` directives
 * (what a gateway composes), sorted, so it only changes when the API does.
 */
export function schemaSdl(schema: GraphQLSchema): string {
  return `${printSubgraphSchema(lexicographicSortSchema(schema))}\n`;
}
