import { GraphQLError, Kind, type ASTNode, type ValidationContext, type ValidationRule } from 'graphql';

export const MAX_QUERY_DEPTH = 12;

/**
 * Rejects operations nested deeper than `max` fields, so one request cannot walk the sharing
 * graph (user → sharedWith → user → ...) without bound.
 */
export function depthLimit(max: number = MAX_QUERY_DEPTH): ValidationRule {
  return (context: ValidationContext) => {
    const fragments = new Map(
      context
        .getDocument()
        .definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)
        .map((d) => [d.name.value, d]),
    );
    const depthOf = (node: ASTNode, depth: number, seen: Set<string>): number => {
      if (depth > max) return depth;
      if (node.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(node.name.value);
        if (!fragment || seen.has(node.name.value)) return depth;
        return depthOf(fragment, depth, new Set(seen).add(node.name.value));
      }
      const selections = 'selectionSet' in node && node.selectionSet ? node.selectionSet.selections : [];
      const next = node.kind === Kind.FIELD ? depth + 1 : depth;
      return selections.reduce((deepest, child) => Math.max(deepest, depthOf(child, next, seen)), next);
    };
    return {
      OperationDefinition(operation) {
        const depth = depthOf(operation, 0, new Set());
        if (depth > max) {
          context.reportError(new GraphQLError(`Query is nested more than ${max} levels deep`, { nodes: operation }));
        }
      },
    };
  };
}
