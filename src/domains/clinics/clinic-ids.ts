import { invalid } from '../../kernel/errors';
import type { SortKey } from '../../kernel/paging';
import { truncate } from '../../kernel/validation';

/** Clinic, invite and tag ids: 24 lowercase hex characters (Tidepool's object ids). */
export const OBJECT_ID_PATTERN = /^[0-9a-f]{24}$/;

/** Throws INVALID naming `field` unless `value` is 24 lowercase hex characters. */
export function assertObjectId(value: string, field: string): string {
  if (!OBJECT_ID_PATTERN.test(value))
    throw invalid(`${field} "${truncate(value)}" is not a valid id: 24 lowercase hexadecimal characters`, field);
  return value;
}

export const assertClinicId = (value: string, field = 'clinicId') => assertObjectId(value, field);

/**
 * The cursor check of a list sorted by created time, then a unique name matching `name`: a
 * cursor whose key has another shape is refused (decodeCursor).
 */
export const isTimeKey =
  (name: RegExp) =>
  (key: SortKey): boolean =>
    key.length === 2 &&
    typeof key[0] === 'string' &&
    !Number.isNaN(Date.parse(key[0])) &&
    typeof key[1] === 'string' &&
    name.test(key[1]);
