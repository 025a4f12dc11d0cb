import { invalid } from '../../kernel/errors';
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

/** A clinic's record of a patient as the per-request loaders key it. */
export const patientKey = (clinicId: string, userId: string) => `${clinicId}:${userId}`;
