import { buildSubgraphSchema, type GraphQLResolverMap } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { isInputObjectType, isObjectType, parse, type GraphQLFieldConfig, type GraphQLSchema } from 'graphql';
import type { ComplexityEstimatorArgs } from 'graphql-query-complexity';
import { createResolversMap } from 'type-graphql';
import { forbidden, invalid, isAppError, unauthenticated } from '../kernel/errors';
import { isAuthenticated } from '../kernel/principal';
import type { Scope } from '../kernel/scope';

/**
 * How a federation reference to one entity type is resolved: by the type's own lookup field
 * resolver, so a gateway reaches an entity through the same DataLoader and the same access rule
 * as a direct query (a caller who may not see it gets null with FORBIDDEN).
 */
export interface EntityBinding {
  typeName: string;
  resolve(reference: Record<string, unknown>, scope: Scope): Promise<unknown>;
}

/** The key field of a representation a gateway sent; anything but a string is the gateway's mistake. */
export function referenceKey(reference: Record<string, unknown>, field: string): string {
  const value = reference[field];
  if (typeof value !== 'string') throw invalid(`The representation needs its key field ${field} as a string`, field);
  return value;
}

/**
 * An unknown reference answers what one the caller may not see answers (FORBIDDEN; signed out:
 * UNAUTHENTICATED): NOT_FOUND beside FORBIDDEN would tell any caller which ids exist. Server
 * tokens may see every entity, so they are told which do not exist.
 */
function absenceHidden(error: unknown, scope: Scope): unknown {
  if (!isAppError(error) || error.code !== 'NOT_FOUND' || scope.principal.isServer) return error;
  return isAuthenticated(scope.principal) ? forbidden() : unauthenticated();
}

/** Types and fields the subgraph build adds (`_entities`, `_Any`, `link__Import`, ...), not ours to describe. */
export function isFederationElement(name: string): boolean {
  return name.startsWith('_') || /^(link|federation)__/.test(name);
}

/** Federation 2.3: `@key` marks the entities; `@shareable` lets another subgraph serve the same field. */
const LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])';

/** The subgraph's own SDL: the type-graphql schema with its `@key` directives and the federation link. */
export function subgraphSdl(schema: GraphQLSchema): string {
  return `${LINK}\n\n${printSchemaWithDirectives(schema)}`;
}

/**
 * Turns the type-graphql schema into an Apollo Federation 2 subgraph (`_service`, `_entities`),
 * as type-graphql's federation recipe does: its SDL with the link, its resolvers, and a
 * reference resolver per entity.
 */
export function federatedSchema(schema: GraphQLSchema, entities: readonly EntityBinding[]): GraphQLSchema {
  const resolvers = createResolversMap(schema) as GraphQLResolverMap<Scope>;
  for (const { typeName, resolve } of entities) {
    resolvers[typeName] = {
      ...(resolvers[typeName] as object),
      // Async, so a refusal fails this one entry (null with its error), not the whole batch.
      __resolveReference: async (reference: Record<string, unknown>, scope: Scope) => {
        try {
          return await resolve(reference, scope);
        } catch (error) {
          throw absenceHidden(error, scope);
        }
      },
    };
  }
  const subgraph = buildSubgraphSchema([{ typeDefs: parse(subgraphSdl(schema)), resolvers }]);
  keepWhatSdlDrops(schema, subgraph);
  guardEntities(subgraph, new Set(entities.map(({ typeName }) => typeName)));
  return subgraph;
}

/**
 * Building from SDL drops what SDL cannot carry, copied over field by field from the
 * type-graphql schema: field extensions (type-graphql's `complexity`, which the cost analysis
 * reads), and the internal values of enum defaults. SDL reads `period: SummaryPeriod! =
 * FOURTEEN_DAYS` before the resolvers give the enum its internal values, so the default stayed
 * the name: a query omitting the argument got `FOURTEEN_DAYS` instead of `14d`, and
 * introspection failed to print it.
 */
function keepWhatSdlDrops(from: GraphQLSchema, to: GraphQLSchema): void {
  for (const type of Object.values(from.getTypeMap())) {
    const target = to.getType(type.name);
    if (isObjectType(type) && isObjectType(target)) {
      const targetFields = target.getFields();
      for (const [name, field] of Object.entries(type.getFields())) {
        const targetField = targetFields[name];
        if (!targetField) continue;
        if (Object.keys(field.extensions).length)
          Object.assign(targetField, { extensions: { ...targetField.extensions, ...field.extensions } });
        for (const arg of field.args) {
          const targetArg = targetField.args.find((candidate) => candidate.name === arg.name);
          if (targetArg && arg.defaultValue !== undefined) targetArg.defaultValue = arg.defaultValue;
        }
      }
    }
    if (isInputObjectType(type) && isInputObjectType(target)) {
      const targetFields = target.getFields();
      for (const [name, field] of Object.entries(type.getFields()))
        if (targetFields[name] && field.defaultValue !== undefined)
          targetFields[name].defaultValue = field.defaultValue;
    }
  }
}

/**
 * `_entities` returns one entity per representation: priced like `users(ids:)`, per entry. A
 * representation that names no entity of ours is the caller's mistake, refused as bad input
 * (the subgraph library would fail it as an internal error).
 */
function guardEntities(schema: GraphQLSchema, typeNames: ReadonlySet<string>): void {
  const field = schema.getQueryType()?.getFields()._entities;
  if (!field?.resolve) return;
  const resolve = field.resolve;
  const complexity = ({ args, childComplexity }: ComplexityEstimatorArgs) =>
    (Array.isArray(args.representations) ? args.representations.length : 1) * (1 + childComplexity);
  Object.assign(field, {
    extensions: { ...field.extensions, complexity },
    resolve: (source, args, context, info) => {
      for (const representation of args.representations as unknown[]) {
        const typeName = (representation as { __typename?: unknown } | null)?.__typename;
        if (typeof typeName !== 'string' || !typeNames.has(typeName))
          throw invalid(
            `Each representation is an object whose __typename is one of ${[...typeNames].join(', ')}`,
            'representations',
          );
      }
      return resolve(source, args, context, info);
    },
  } satisfies Partial<GraphQLFieldConfig<unknown, unknown>>);
}
