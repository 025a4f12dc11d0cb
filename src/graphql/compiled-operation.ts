import {
  execute,
  getOperationAST,
  getVariableValues,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Scope } from '../kernel/scope';

/** Runs one fixed GraphQL operation for a request's scope with the given variables. */
export type Operation = (scope: Scope, variables: Record<string, unknown>) => Promise<ExecutionResult>;

/**
 * A fixed operation (a REST route's document), prepared once at start-up. Queries are compiled
 * to a function by graphql-jit: a patient list reads a few hundred statistics per patient, and
 * graphql-js's interpretation of every field is most of such a page's cost. Variables are
 * coerced by graphql-js first, so a bad value is refused with graphql-js's own error, the one
 * the REST layer's messages are built from; the compiled function then coerces the same values.
 * Mutations stay with graphql-js: they run once per request over small selections, and their
 * inputs (readings uploads) can be large enough that coercing them twice would cost more.
 */
export function prepareOperation(schema: GraphQLSchema, document: DocumentNode): Operation {
  const operation = getOperationAST(document);
  if (!operation) throw new Error('A prepared document holds exactly one operation');
  const interpreted: Operation = async (scope, variableValues) =>
    execute({ schema, document, contextValue: scope, variableValues });
  if (operation.operation !== 'query') return interpreted;
  const compiled = compileQuery(schema, document);
  if (!isCompiledQuery(compiled))
    throw new Error(`graphql-jit could not compile a query: ${compiled.errors?.[0]?.message ?? 'unknown error'}`);
  return async (scope, variables) => {
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
    if (coerced.errors) return { errors: coerced.errors };
    return compiled.query(undefined, scope, variables);
  };
}
