import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { CostCache, queryCost } from './cost';
import { limitRules, MAX_QUERY_COST, MAX_TOKENS } from './limits';
import { listLengthLimit } from './list-limit';

const refusal = (message: string, code: string) => new GraphQLError(message, { extensions: { code } });

/** graphql-js's own parse and validation errors, under the codes Apollo gives them on POST /graphql. */
const withCode = (errors: readonly GraphQLError[], code: string) =>
  errors.map((error) =>
    error.extensions.code
      ? error
      : new GraphQLError(error.message, {
          nodes: error.nodes,
          source: error.source,
          positions: error.positions,
          extensions: { code },
        }),
  );

interface SubscribePayload {
  query: string;
  operationName?: string | null;
  variables?: unknown;
}

/**
 * What a subscribe message must pass before it runs, as POST /graphql checks its requests:
 * parsing within the token limit, validation with the request limits, a subscription operation,
 * and the query cost. Answers the parsed document, or the errors that refuse it.
 */
export function subscriptionRefusals(schema: GraphQLSchema) {
  const costs = new CostCache();
  const rules = [...specifiedRules, ...limitRules, listLengthLimit()];
  return (payload: SubscribePayload): DocumentNode | readonly GraphQLError[] => {
    let document: DocumentNode;
    try {
      document = parse(payload.query, { maxTokens: MAX_TOKENS });
    } catch (error) {
      if (error instanceof GraphQLError) return withCode([error], 'GRAPHQL_PARSE_FAILED');
      throw error;
    }
    const errors = validate(schema, document, rules);
    if (errors.length) return withCode(errors, 'GRAPHQL_VALIDATION_FAILED');
    const operation = getOperationAST(document, payload.operationName ?? undefined);
    if (operation?.operation !== 'subscription')
      return [
        refusal(
          'Only subscriptions are served over WebSocket; send queries and mutations to POST /graphql',
          'BAD_REQUEST',
        ),
      ];
    const variables = (payload.variables ?? undefined) as Record<string, unknown> | undefined;
    const name = payload.operationName ?? undefined;
    try {
      const cost = costs.of(document, name, variables, () => queryCost(schema, document, variables, name));
      if (cost > MAX_QUERY_COST)
        return [refusal(`Query cost ${cost} exceeds the maximum of ${MAX_QUERY_COST}`, 'QUERY_TOO_COMPLEX')];
    } catch (error) {
      if (error instanceof GraphQLError) return [error];
      throw error;
    }
    return document;
  };
}
