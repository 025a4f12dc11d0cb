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
