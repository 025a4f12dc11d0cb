import type { ApolloServerPlugin, BaseContext, GraphQLRequestListener } from '@apollo/server';
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isLeafType,
  isListType,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { fieldExtensionsEstimator, getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { isAppError } from '../kernel/errors';
import { DEFAULT_LIST_LENGTH, DEFAULT_PAGE_SIZE, MAX_QUERY_COST, MAX_QUERY_NODES } from './limits';

/** How many items a field answers per parent: its page size, its ids, or a default for lists. */
function expectedItems(field: Parameters<ComplexityEstimator>[0]['field'], args: Record<string, unknown>): number {
  // At least 1: a negative size is refused by its resolver, and must not offset the cost of others.
  if (typeof args.size === 'number') return Math.max(1, args.size);
  if (field.args.some((arg) => arg.name === 'size')) return DEFAULT_PAGE_SIZE;
  if (Array.isArray(args.ids)) return Math.max(1, args.ids.length);
  return isListType(getNullableType(field.type)) ? DEFAULT_LIST_LENGTH : 1;
}

/**
 * A field costs 1 per value it puts in the answer: a scalar (or list of scalars) 1, an object 1
 * plus its fields, times the items of its list. So the cost approximates the answer's size.
 * Introspection (`__schema`, `__type`) answers the schema, whose size is fixed and small, with
 * its nesting bounded by graphql-js's MaxIntrospectionDepthRule: it costs 1, or tools asking
 * for the whole schema would be refused.
 */
export const listSizeEstimator: ComplexityEstimator = ({ field, args, childComplexity }) =>
  isLeafType(getNamedType(field.type)) || field.name.startsWith('__')
    ? 1
    : expectedItems(field, args) * (1 + childComplexity);

/** A field's own `complexity` (type-graphql's option) first, then the size estimate. */
const estimators = [fieldExtensionsEstimator(), listSizeEstimator];

/**
 * A refusal before execution: HTTP 400, a code the error formatter lets through. A refused
 * variable keeps its nodes and cause, as Apollo's own UserInputError does, so it is reported
 * as execution would have reported it.
 */
const refusal = (message: string, code = 'GRAPHQL_VALIDATION_FAILED', cause?: GraphQLError) =>
  new GraphQLError(message, {
    nodes: cause?.nodes,
    originalError: cause && (cause.originalError ?? cause),
    extensions: { code, http: { status: 400 } },
  });

/**
 * The estimated cost of the operation `operationName` of `document` with `variables`. A limit
 * crossed on the way (a list argument a service caps, the analysis's own node budget) is a
 * refusal naming it.
 */
export function queryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
): number {
  try {
    return getComplexity({
      schema,
      query: document,
      variables,
      operationName,
      estimators,
      maxQueryNodes: MAX_QUERY_NODES,
    });
  } catch (error) {
    if (isAppError(error)) throw refusal(error.message, 'BAD_USER_INPUT');
    if (!(error instanceof GraphQLError)) throw error;
    // graphql-query-complexity's node budget; its message does not say how large it is.
    if (error.message.includes('maximum allowed number of nodes'))
      throw refusal(`Query expands to more than ${MAX_QUERY_NODES} selections once its fragments are spread`);
    // Variables that do not fit their types: what execution would answer, before it starts.
    throw refusal(error.message, 'BAD_USER_INPUT', error);
  }
}

/**
 * Refuses, after parsing and validation and before any resolver runs, operations costing more
 * than MAX_QUERY_COST and subscriptions. The cost depends on the variables (`ids`, `size`), so it
 * is checked per request here rather than as a validation rule, whose result Apollo caches per
 * document.
 */
export function requestLimits(): ApolloServerPlugin {
  // Stateless, so one listener serves every request.
  const listener: GraphQLRequestListener<BaseContext> = {
    async didResolveOperation({ request, document, operation, schema }) {
      // No operation to run (a wrong operationName): execution answers that, running nothing.
      if (!operation) return;
      if (operation.operation === 'subscription') {
        throw refusal('Subscriptions are not supported on this transport', 'BAD_REQUEST');
      }
      const cost = queryCost(schema, document, request.variables, operation.name?.value);
      if (cost > MAX_QUERY_COST) throw refusal(`Query cost ${cost} exceeds the maximum of ${MAX_QUERY_COST}`);
    },
  };
  return { requestDidStart: async () => listener };
}
