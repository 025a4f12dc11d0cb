import {
  execute,
  getOperationAST,
  getVariableValues,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Scope } from '../kernel/scope';

/** Runs one fixed GraphQL operation for a request's scope with the given variables. */
export type Operation = (scope: Scope, variables: Record<string, unknown>) => Promise<ExecutionResult>;

/**
 * A fixed operation (a REST route's document, or one Apollo runs again: compiling-gateway.ts),
 * prepared once. Queries are compiled
 * to a function by graphql-jit: a patient list reads a few hundred statistics per patient, and
 * graphql-js's interpretation of every field is most of such a page's cost. Variables are
 * coerced by graphql-js first, so a bad value is refused with graphql-js's own error, the one
 * the REST layer's messages are built from; the compiled function then coerces the same values.
 * Mutations stay with graphql-js: they run once per request over small selections, and their
 * inputs (readings uploads) can be large enough that coercing them twice would cost more.
 */
export function prepareOperation(schema: GraphQLSchema, document: DocumentNode, operationName?: string): Operation {
  const operation = getOperationAST(document, operationName);
  if (!operation) throw new Error('A prepared document holds exactly one operation, or the one named');
  const interpreted: Operation = async (scope, variableValues) =>
    execute({ schema, document, contextValue: scope, variableValues, operationName });
  if (operation.operation !== 'query') return interpreted;
  // Compiled on first use: a service that never serves a route keeps no code for it (the
  // patient-list queries compile to large functions).
  let compiled: CompiledQuery | undefined;
  const compile = () => {
    const result = compileQuery(schema, document, operationName);
    if (!isCompiledQuery(result))
      throw new Error(`graphql-jit could not compile a query: ${result.errors?.[0]?.message ?? 'unknown error'}`);
    return result;
  };
  return async (scope, variables) => {
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
    if (coerced.errors) return { errors: coerced.errors };
    compiled ??= compile();
    return compiled.query(undefined, scope, variables);
  };
}
