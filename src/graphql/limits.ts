import {
  GraphQLError,
  Kind,
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { PAGE_SIZE } from '../kernel/paging';
import { QUERY_TOO_COMPLEX } from './errors';

/**
 * What one /graphql request may ask for. Each bounds the work (and memory) a single request
 * can cause, whoever sends it: a request over a limit is answered 400 naming it, before any
 * resolver runs. The REST layer runs fixed documents and is not subject to them.
 */

/** Fields nested in each other, fragments included. */
export const MAX_QUERY_DEPTH = 12;
/** Lexical tokens of the document (graphql-js `parse` stops counting there). */
export const MAX_TOKENS = 2_000;
/** Aliased fields in the document. */
export const MAX_ALIASES = 30;
/** Fields at the root of the operation (after merging, as execution does). */
export const MAX_ROOT_FIELDS = 20;
/**
 * The estimated size of the answer: every field a resolver produces counts one, once per
 * item of each list around it (see cost.ts). Roughly the number of values in the response.
 */
export const MAX_QUERY_COST = 50_000;
/** Selections the cost analysis may visit, fragments expanded; bounds that analysis itself. */
export const MAX_QUERY_NODES = 5_000;
/** Items assumed for a plain list field (emails, roles, permissions...). */
export const DEFAULT_LIST_LENGTH = 10;
/** Items of a connection whose `first` is not given: its default page. */
export const DEFAULT_PAGE_SIZE = PAGE_SIZE.default;
/** Bytes of the serialized answer: the last guard, after the cost estimate. */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

const fragmentsOf = (document: DocumentNode) =>
  new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );

/**
 * Rejects operations nested deeper than `max` fields, so one request cannot walk the sharing
 * graph (user → sharedWith → user → ...) without bound. Each fragment's depth is computed once,
 * so a fragment spread many times (or fragments spreading each other twice, level after level)
 * costs no more than its text: validation stays linear in the document's size.
 */
export function depthLimit(max: number = MAX_QUERY_DEPTH): ValidationRule {
  return (context: ValidationContext) => {
    const fragments = fragmentsOf(context.getDocument());
    // A fragment in the middle of being measured counts 0: cycles are NoFragmentCyclesRule's to report.
    const fragmentDepths = new Map<string, number>();
    const depthOf = (selectionSet: SelectionSetNode | undefined): number => {
      let deepest = 0;
      for (const selection of selectionSet?.selections ?? []) {
        // Introspection is bounded by graphql-js's own MaxIntrospectionDepthRule; the standard
        // introspection query that GraphQL tools send nests deeper than this limit.
        if (selection.kind === Kind.FIELD && selection.name.value.startsWith('__')) continue;
        if (selection.kind === Kind.FIELD) deepest = Math.max(deepest, 1 + depthOf(selection.selectionSet));
        else if (selection.kind === Kind.INLINE_FRAGMENT) deepest = Math.max(deepest, depthOf(selection.selectionSet));
        else deepest = Math.max(deepest, fragmentDepth(selection.name.value));
      }
      return deepest;
    };
    const fragmentDepth = (name: string): number => {
      const known = fragmentDepths.get(name);
      if (known !== undefined) return known;
      fragmentDepths.set(name, 0);
      const depth = depthOf(fragments.get(name)?.selectionSet);
      fragmentDepths.set(name, depth);
      return depth;
    };
    return {
      OperationDefinition(operation) {
        if (depthOf(operation.selectionSet) > max) {
          context.reportError(tooComplex(`Query is nested more than ${max} levels deep`, operation));
        }
      },
    };
  };
}

/** A request-limit refusal: its code tells clients to ask for less, its message names the limit. */
export const tooComplex = (message: string, nodes?: ASTNode) =>
  new GraphQLError(message, { nodes, extensions: { code: QUERY_TOO_COMPLEX } });

/** Rejects documents with more than `max` aliased fields (one field asked for many times). */
export function aliasLimit(max: number = MAX_ALIASES): ValidationRule {
  return (context: ValidationContext) => {
    let aliases = 0;
    return {
      Field(field) {
        if (field.alias) aliases += 1;
      },
      Document: {
        leave() {
          if (aliases > max) context.reportError(tooComplex(`Query has ${aliases} aliases, more than ${max}`));
        },
      },
    };
  };
}

/**
 * Rejects operations with more than `max` root fields. Counts what execution runs: fields with
 * the same response name merge, and each fragment is spread once however often it is named.
 */
export function rootFieldLimit(max: number = MAX_ROOT_FIELDS): ValidationRule {
  return (context: ValidationContext) => {
    const fragments = fragmentsOf(context.getDocument());
    const collect = (selectionSet: SelectionSetNode | undefined, names: Set<string>, spread: Set<string>) => {
      for (const selection of selectionSet?.selections ?? []) {
        if (selection.kind === Kind.FIELD) names.add(selection.alias?.value ?? selection.name.value);
        else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet, names, spread);
        else if (!spread.has(selection.name.value)) {
          spread.add(selection.name.value);
          collect(fragments.get(selection.name.value)?.selectionSet, names, spread);
        }
      }
      return names;
    };
    return {
      OperationDefinition(operation: OperationDefinitionNode) {
        const count = collect(operation.selectionSet, new Set(), new Set()).size;
        if (count > max) {
          context.reportError(tooComplex(`Operation has ${count} root fields, more than ${max}`, operation));
        }
      },
    };
  };
}

/** The validation rules /graphql adds to graphql-js's own (which are linear in the document). */
export const limitRules: ValidationRule[] = [depthLimit(), aliasLimit(), rootFieldLimit()];
