import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { DateTimeScalar } from './scalars';

/** A resolver class and the instance (with its services) that serves it. */
export type ResolverBinding = [resolverClass: Function, instance: object];

/** Builds the type-graphql schema; resolvers come with their dependencies already wired. */
export async function buildIsletSchema(bindings: ResolverBinding[]): Promise<GraphQLSchema> {
  const instances = new Map(bindings);
  const [first, ...rest] = bindings.map(([resolverClass]) => resolverClass);
  return buildSchema({
    resolvers: [first, ...rest],
    container: { get: (resolverClass: Function) => instances.get(resolverClass) },
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    validate: false,
  });
}

/** The SDL committed as schema.graphql: sorted, so it only changes when the API does. */
export function schemaSdl(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
