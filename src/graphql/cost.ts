import type { ApolloServerPlugin, BaseContext, GraphQLRequestListener } from '@apollo/server';
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isEnumType,
  isLeafType,
  isListType,
  isObjectType,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { fieldExtensionsEstimator, getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { isAppError } from '../kernel/errors';
import { QUERY_TOO_COMPLEX } from './errors';
import { assertFirst } from '../kernel/paging';
import { DEFAULT_LIST_LENGTH, MAX_QUERY_COST, MAX_QUERY_NODES } from './limits';

/** A connection type (`BlobConnection`): its `edges` and `nodes` hold the page its field asked for. */
const isConnection = (type: unknown) => isObjectType(type) && type.name.endsWith('Connection');

/**
 * How many items a field answers per parent: a connection its `first` (checked here, before
 * anything runs: 1 to 100, 100 when omitted), a batch lookup its ids, a list inside a connection
 * 1 (the connection was priced per item), other lists a default.
 */
function expectedItems(
  field: Parameters<ComplexityEstimator>[0]['field'],
  args: Record<string, unknown>,
  parent: Parameters<ComplexityEstimator>[0]['type'],
): number {
  if (field.args.some((arg) => arg.name === 'first')) return assertFirst(args.first as number | null | undefined);
  if (Array.isArray(args.ids)) return Math.max(1, args.ids.length);
  if (isConnection(parent)) return 1;
  return isListType(getNullableType(field.type)) ? DEFAULT_LIST_LENGTH : 1;
}

/**
 * A field costs 1 per value it puts in the answer: a scalar 1, a list of scalars its items (an
 * account's emails: at most 10; a list of enum values: at most each value once), an object 1 plus its fields, times the items of its list. So the
 * cost approximates the answer's size. Introspection (`__schema`, `__type`) answers the schema,
 * whose size is fixed and small, with its nesting bounded by graphql-js's
 * MaxIntrospectionDepthRule: it costs 1, or tools asking for the whole schema would be refused.
 */
export const listSizeEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  if (field.name.startsWith('__')) return 1;
  const leaf = getNamedType(field.type);
  // A list of enum values holds each value at most once (an account's permissions: 5 at most).
  if (isEnumType(leaf) && isListType(getNullableType(field.type))) return leaf.getValues().length;
  if (isLeafType(leaf)) return expectedItems(field, args, type);
  return expectedItems(field, args, type) * (1 + childComplexity);
};

/** A field's own `complexity` (type-graphql's option) first, then the size estimate. */
const estimators = [fieldExtensionsEstimator(), listSizeEstimator];

/**
 * A refusal before execution: HTTP 400, a code the error formatter lets through. A refused
 * variable keeps its nodes and cause, as Apollo's own UserInputError does, so it is reported
 * as execution would have reported it.
 */
const refusal = (message: string, code = QUERY_TOO_COMPLEX, cause?: GraphQLError, field?: unknown) =>
  new GraphQLError(message, {
    nodes: cause?.nodes,
    originalError: cause && (cause.originalError ?? cause),
    extensions: { code, http: { status: 400 }, ...(typeof field === 'string' ? { field } : {}) },
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
    if (isAppError(error)) throw refusal(error.message, 'BAD_USER_INPUT', undefined, error.details.field);
    if (!(error instanceof GraphQLError)) throw error;
    // graphql-query-complexity's node budget; its message does not say how large it is.
    if (error.message.includes('maximum allowed number of nodes'))
      throw refusal(`Query expands to more than ${MAX_QUERY_NODES} selections once its fragments are spread`);
    // Variables that do not fit their types: what execution would answer, before it starts.
    throw refusal(error.message, 'BAD_USER_INPUT', error);
  }
}

/**
 * Costs already computed, per parsed document (Apollo hands out the same DocumentNode for the
 * same query text) and per operation and variables: the analysis walks the whole document with
 * type information, which cost a dashboard's repeated query more than the rest of its
 * validation. Variables too long to serve as a key are priced anew each time.
 */
export class CostCache {
  private readonly byDocument = new WeakMap<DocumentNode, Map<string, number>>();

  constructor(
    private readonly maxKeyLength = 2_048,
    private readonly maxEntriesPerDocument = 64,
  ) {}

  of(document: DocumentNode, operationName: string | undefined, variables: unknown, compute: () => number): number {
    const key = `${operationName ?? ''}\u0000${JSON.stringify(variables ?? {})}`;
    if (key.length > this.maxKeyLength) return compute();
    let known = this.byDocument.get(document);
    if (!known) this.byDocument.set(document, (known = new Map()));
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const cost = compute();
    if (known.size >= this.maxEntriesPerDocument) known.clear();
    known.set(key, cost);
    return cost;
  }
}

/**
 * Refuses, after parsing and validation and before any resolver runs, operations costing more
 * than MAX_QUERY_COST and subscriptions. The cost depends on the variables (`ids`, `first`), so it
 * is checked per request here rather than as a validation rule, whose result Apollo caches per
 * document.
 */
export function requestLimits(): ApolloServerPlugin {
  const costs = new CostCache();
  // One listener serves every request; costs are shared across them.
  const listener: GraphQLRequestListener<BaseContext> = {
    async didResolveOperation({ request, document, operation, schema }) {
      // No operation to run (a wrong operationName): execution answers that, running nothing.
      if (!operation) return;
      if (operation.operation === 'subscription') {
        throw refusal(
          'Subscriptions are served over WebSocket on /graphql with graphql-ws, not over HTTP',
          'BAD_REQUEST',
        );
      }
      const cost = costs.of(document, operation.name?.value, request.variables, () =>
        queryCost(schema, document, request.variables, operation.name?.value),
      );
      if (cost > MAX_QUERY_COST) throw refusal(`Query cost ${cost} exceeds the maximum of ${MAX_QUERY_COST}`);
    },
  };
  return { requestDidStart: async () => listener };
}
