import { GraphQLError, Kind, type ValidationContext, type ValidationRule } from 'graphql';
import { MAX_LIST_ENTRIES, tooManyEntries } from '../kernel/validation';

/**
 * Refuses list literals of more than MAX_LIST_ENTRIES entries in the document, naming the
 * argument or input field they are given to: the same bound the request guard puts on lists
 * sent as variables, so it holds however a client writes its input.
 */
export function listLengthLimit(max: number = MAX_LIST_ENTRIES): ValidationRule {
  return (context: ValidationContext) => ({
    ListValue(list, _key, parent) {
      if (list.values.length <= max) return;
      const owner =
        parent && !Array.isArray(parent) ? (parent as { kind?: Kind; name?: { value: string } }) : undefined;
      const field = owner?.kind === Kind.ARGUMENT || owner?.kind === Kind.OBJECT_FIELD ? owner.name!.value : 'a list';
      context.reportError(
        new GraphQLError(tooManyEntries(field, list.values.length, max).message, {
          nodes: list,
          extensions: { code: 'BAD_USER_INPUT', field },
        }),
      );
    },
  });
}
