import type { ApolloServerOptionsWithGateway } from '@apollo/server';
import {
  BREAK,
  execute,
  getOperationAST,
  GraphQLError,
  visit,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { Scope } from '../kernel/scope';
import { prepareOperation, type Operation } from './compiled-operation';

type Gateway = ApolloServerOptionsWithGateway<Scope>['gateway'];
type Executor = NonNullable<Awaited<ReturnType<Gateway['load']>>['executor']>;

/** A document's operations as Apollo asked for them: how often, and compiled once asked again. */
interface Seen {
  runs: number;
  compiled?: Operation;
}

/** Whether the document reads the schema itself (`__schema`, `__type`): tools ask it once. */
function introspects(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/**
 * graphql-jit's errors as graphql-js makes them. Apollo reads `extensions.code` of every error
 * before formatting it, and graphql-jit leaves `extensions` undefined when the resolver's error
 * has none (graphql-js always sets an object), so Apollo answered such an error as an internal
 * one without formatting it. Message, locations, path and the resolver's error stay.
 */
function asGraphQLJsErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors) return result;
  const errors = result.errors.map((error) => {
    // graphql-js's own errors (bad variables, coerced before the compiled query runs) stay as they are.
    if (error.extensions !== undefined) return error;
    const rebuilt = new GraphQLError(error.message, {
      path: error.path,
      originalError: error.originalError,
      extensions: error.extensions,
    });
    return Object.defineProperty(rebuilt, 'locations', { value: error.locations, enumerable: true });
  });
  return { ...result, errors };
}

/**
 * The run of a document from which it runs compiled. Compiling costs milliseconds, several runs'
 * worth: a dashboard's queries repeat by the thousand, while a document asked a few times (a
 * client's one-off query, a test) would pay more for compiling than it saves (compiling from the
 * second run made the access-matrix suite a fifth slower).
 */
const COMPILED_FROM_RUN = 20;

/**
 * Apollo's execution step, through the option its migration guide names for a custom executor
 * (`gateway`; the schema is this process's own, loaded once). A query document Apollo has
 * run COMPILED_FROM_RUN times runs compiled by graphql-jit (`prepareOperation`, as the REST routes'
 * documents do): graphql-js interprets every field of every row on every request, and dashboards
 * repeat the same queries, a patient list's summaries reading thousands of fields a page. Its
 * first runs, mutations, subscriptions and introspection run in graphql-js as before: compiling
 * costs several runs, and mutations run once per request. Apollo keeps one parsed
 * document per query text (its document store), so the compiled operations are kept with it and
 * go when it forgets the text.
 */
export function compilingGateway(schema: GraphQLSchema): Gateway {
  const seen = new WeakMap<DocumentNode, Map<string, Seen>>();
  const compiles = (document: DocumentNode, operationName: string | undefined) =>
    getOperationAST(document, operationName)?.operation === 'query' && !introspects(document);

  // Stored once each: a request only reads its document's entry and counts the run.
  const entryOf = (document: DocumentNode, key: string): Seen => {
    let byName = seen.get(document);
    if (!byName) seen.set(document, (byName = new Map()));
    let entry = byName.get(key);
    if (!entry) byName.set(key, (entry = { runs: 0 }));
    return entry;
  };

  const executor: Executor = async ({ document, operationName, request, context }) => {
    const scope = context as Scope;
    const variables = request.variables ?? {};
    const entry = entryOf(document, operationName ?? '');
    entry.runs += 1;
    if (!entry.compiled && entry.runs === COMPILED_FROM_RUN && compiles(document, operationName ?? undefined))
      entry.compiled = prepareOperation(schema, document, operationName ?? undefined);
    if (entry.compiled) return asGraphQLJsErrors(await entry.compiled(scope, variables));
    return execute({ schema, document, contextValue: scope, variableValues: variables, operationName });
  };

  return {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    load: async () => ({ executor }),
    stop: async () => undefined,
  };
}
