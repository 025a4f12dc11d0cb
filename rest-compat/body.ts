import { invalid } from '../src/kernel/errors';

/** Shape checks for legacy JSON bodies, before they become GraphQL variables. */

export function jsonObject(body: unknown, what = 'Request body'): Record<string, unknown> {
  if (body === undefined) throw invalid(`${what} is required and must be a JSON object`);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid(`${what} must be a JSON object`);
  return body as Record<string, unknown>;
}

export function optionalJsonObject(body: unknown, what = 'Request body'): Record<string, unknown> {
  return body === undefined ? {} : jsonObject(body, what);
}

export function without(object: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));
}

/** Drops null/undefined/empty-array keys, as the legacy services serialise. */
export function compact(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(object).filter(
      ([, value]) => value !== null && value !== undefined && !(Array.isArray(value) && value.length === 0),
    ),
  );
}

const JSON_TYPES = {
  string: { name: 'a string', test: (value: unknown) => typeof value === 'string' },
  boolean: { name: 'a boolean', test: (value: unknown) => typeof value === 'boolean' },
  strings: {
    name: 'a list of strings',
    test: (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
  },
};

export type JsonType = keyof typeof JSON_TYPES;

/**
 * Each named field, when present and not null, must have its JSON type. GraphQL input coercion
 * would otherwise accept a lone value for a list (`"emails": "a@b.org"` becomes a one-item list)
 * where the legacy API answers 400. Null is left to the operation: "unchanged" where the field
 * is optional, a refusal naming it where it is required.
 */
export function withTypes(object: Record<string, unknown>, types: Record<string, JsonType>): Record<string, unknown> {
  for (const [field, type] of Object.entries(types)) {
    const value = object[field];
    if (value != null && !JSON_TYPES[type].test(value))
      throw invalid(`"${field}" must be ${JSON_TYPES[type].name}`, field);
  }
  return object;
}
