import { invalid } from '../src/kernel/errors';
import { parseDateTime } from '../src/kernel/validation';

/**
 * Readers of Tidepool's query parameters, each refusing a bad value with INVALID naming the
 * parameter, so every route reads them the same way.
 */

/** A query parameter given once, or undefined when absent. */
export function oneParameter(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(`query parameter "${name}" must be given once`, name);
  return value;
}

/** A query parameter that may repeat or list values separated by commas. */
export function listParameter(query: Record<string, unknown>, name: string): string[] | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  const values = (Array.isArray(value) ? value : [value]).flatMap((item) =>
    typeof item === 'string' ? item.split(',') : [''],
  );
  if (values.some((item) => item.trim() === '')) throw invalid(`query parameter "${name}" has an empty value`, name);
  return values.map((item) => item.trim());
}

export function integerParameter(query: Record<string, unknown>, name: string): number | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^-?\d{1,9}$/.test(value))
    throw invalid(`query parameter "${name}" must be an integer`, name);
  return Number(value);
}

export function dateTimeParameter(query: Record<string, unknown>, name: string): string {
  const value = query[name];
  if (value === undefined) throw invalid(`query parameter "${name}" is required`, name);
  if (typeof value !== 'string') throw invalid(`query parameter "${name}" must be given once`, name);
  return parseDateTime(value, name).toISOString();
}

/** A query parameter `true` or `false` (Tidepool's Go services in this strictness); undefined when absent. */
export function booleanParameter(query: Record<string, unknown>, name: string): boolean | undefined {
  const value = oneParameter(query, name);
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw invalid(`query parameter "${name}" must be true or false`, name);
  return value === 'true';
}

/** A boolean as Go's strconv.ParseBool reads it (1, t, T, TRUE, true, True and their false forms). */
export function parseBoolParameter(query: Record<string, unknown>, name: string): boolean | undefined {
  const value = oneParameter(query, name);
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw invalid(`query parameter "${name}" must be true or false`, name);
}
