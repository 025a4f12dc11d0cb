import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import { getOperationAST, Kind, type DocumentNode, type SelectionSetNode } from 'graphql';
import type { Scope } from '../kernel/scope';

/** Each fragment is looked into once (`seen`): a document spreading fragments into each other stays linear. */
function fieldNames(selectionSet: SelectionSetNode, document: DocumentNode, seen: Set<string>): string[] {
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === '__typename' ? [] : [selection.name.value];
    if (selection.kind === Kind.INLINE_FRAGMENT) return fieldNames(selection.selectionSet, document, seen);
    if (seen.has(selection.name.value)) return [];
    seen.add(selection.name.value);
    const fragment = document.definitions.find(
      (definition) => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value,
    );
    return fragment?.kind === Kind.FRAGMENT_DEFINITION ? fieldNames(fragment.selectionSet, document, seen) : [];
  });
}

/** The root fields an operation asks for (`user`, `blobs,deviceLogs`): the operation the access log names. */
export function rootFieldsOf(document: DocumentNode, operationName?: string | null): string {
  const operation = getOperationAST(document, operationName);
  const names = operation ? [...new Set(fieldNames(operation.selectionSet, document, new Set()))] : [];
  return names.length ? names.join(',') : 'unknown';
}

/**
 * Names each operation on the request's access trail and writes what the trail recorded once
 * the answer is ready, before it is sent: one insert per request at most.
 */
export function recordAccess(): ApolloServerPlugin<Scope> {
  // One listener for every request: the request's trail is in its context.
  const listener: GraphQLRequestListener<Scope> = {
    async didResolveOperation({ contextValue, document, operationName }) {
      contextValue.accessTrail.operation = rootFieldsOf(document, operationName);
    },
    async willSendResponse({ contextValue }) {
      await contextValue.accessTrail.flush(contextValue);
    },
  };
  return { requestDidStart: async () => listener };
}
