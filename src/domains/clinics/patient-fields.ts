import { invalid } from '../../kernel/errors';
import { assertEmail, truncate } from '../../kernel/validation';
import type { Permission } from '../permissions/permission.model';
import { assertObjectId } from './clinic-ids';
import { MAX_TEXT_LENGTH } from './clinic-fields';

/** A clinic's patient tags: at most this many per clinic, and so on one patient. */
export const MAX_PATIENT_TAGS = 50;

/** What a clinic may be granted by a patient; `custodian` only by creating the account. */
export const SHAREABLE_PERMISSIONS = ['view', 'upload', 'note'] as const satisfies readonly Permission[];

/** A clinic-created account's permissions, as Tidepool's CustodialAccountPermissions. */
export const CUSTODIAL_PERMISSIONS: readonly Permission[] = ['custodian', 'view', 'upload', 'note'];

/** The clinic's record of a patient, as created or replaced. */
export interface PatientFields {
  fullName: string;
  birthDate: string;
  email?: string | null;
  mrn?: string | null;
  tags?: readonly string[] | null;
}

/** Changes to a patient record: omitted fields stay; null clears an optional one (and is refused for required ones). */
export interface PatientChanges {
  fullName?: string | null;
  birthDate?: string | null;
  email?: string | null;
  mrn?: string | null;
  tags?: readonly string[] | null;
}

/** The checked fields of a change, only those given. */
export interface CheckedPatientChanges {
  fullName?: string;
  birthDate?: string;
  email?: string | null;
  mrn?: string | null;
  tags?: string[];
}

/**
 * The longest full name: a name sorts the patient list, so it rides in the list's cursors, which
 * are bounded (kernel/paging); 150 characters is beyond any real name.
 */
export const MAX_NAME_LENGTH = 150;

function text(value: string, field: string, max = MAX_TEXT_LENGTH): string {
  if (!value.trim()) throw invalid(`${field} must not be empty`, field);
  if (value.length > max) throw invalid(`${field} must be at most ${max} characters`, field);
  return value;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date `YYYY-MM-DD` that exists, from year 1900 to today (a birth date). */
export function assertBirthDate(value: string, field = 'birthDate'): string {
  const match = DATE.exec(value);
  const date = match ? new Date(`${value}T00:00:00Z`) : null;
  const real = !!date && !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  if (!real) throw invalid(`${field} "${truncate(value)}" is not a date of the form YYYY-MM-DD`, field);
  if (date.getUTCFullYear() < 1900 || date.getTime() > Date.now())
    throw invalid(`${field} must be from 1900-01-01 to today`, field);
  return value;
}

/** Tag ids of a patient: 24-hex, each once, at most MAX_PATIENT_TAGS (whether the clinic has them is checked apart). */
export function assertTagIds(values: readonly string[], field = 'tags'): string[] {
  if (values.length > MAX_PATIENT_TAGS) throw invalid(`${field} may hold at most ${MAX_PATIENT_TAGS} tags`, field);
  values.forEach((value, index) => assertObjectId(value, `${field}[${index}]`));
  if (new Set(values).size !== values.length) throw invalid(`${field} contains a tag more than once`, field);
  return [...values];
}

/** The fields given in a change, checked; a required field (fullName, birthDate) cannot be cleared. */
export function checkPatientChanges(changes: PatientChanges): CheckedPatientChanges {
  const checked: CheckedPatientChanges = {};
  if (changes.fullName === null) throw invalid('fullName is required', 'fullName');
  if (changes.birthDate === null) throw invalid('birthDate is required', 'birthDate');
  if (changes.fullName !== undefined) checked.fullName = text(changes.fullName, 'fullName', MAX_NAME_LENGTH);
  if (changes.birthDate !== undefined) checked.birthDate = assertBirthDate(changes.birthDate);
  if (changes.email !== undefined) checked.email = changes.email === null ? null : assertEmail(changes.email, 'email');
  if (changes.mrn !== undefined) checked.mrn = changes.mrn === null ? null : text(changes.mrn, 'mrn');
  if (changes.tags !== undefined) checked.tags = changes.tags === null ? [] : assertTagIds(changes.tags);
  return checked;
}

/** A whole patient record: fullName and birthDate required. */
export function checkPatientFields(fields: PatientFields): Required<CheckedPatientChanges> {
  const checked = checkPatientChanges(fields);
  return {
    fullName: checked.fullName!,
    birthDate: checked.birthDate!,
    email: checked.email ?? null,
    mrn: checked.mrn ?? null,
    tags: checked.tags ?? [],
  };
}

/**
 * Permissions a patient gives its clinic: at least one, each once, from view, upload and note;
 * `custodian` may be kept by a patient whose account the clinic created (`held`), never added.
 */
export function assertClinicPermissions(
  values: readonly string[],
  held: readonly Permission[] = [],
  field = 'permissions',
): Permission[] {
  if (values.length === 0) throw invalid(`${field} must hold at least one permission`, field);
  const allowed: readonly string[] = held.includes('custodian')
    ? [...SHAREABLE_PERMISSIONS, 'custodian']
    : SHAREABLE_PERMISSIONS;
  values.forEach((value, index) => {
    if (!allowed.includes(value)) throw invalid(`${field}[${index}] must be one of ${allowed.join(', ')}`, field);
  });
  if (new Set(values).size !== values.length) throw invalid(`${field} contains a permission more than once`, field);
  return [...values] as Permission[];
}

/** Tidepool's tag name rule: 1 to 20 letters, digits, `_+<>-` and inner spaces. */
const TAG_NAME = /^[\p{L}\p{N}_+><-][\p{L}\p{N}\s_+><-]*$/u;

export function assertTagName(value: string, field = 'name'): string {
  if (value.length < 1 || value.length > 20) throw invalid(`${field} must be 1 to 20 characters long`, field);
  if (!TAG_NAME.test(value))
    throw invalid(`${field} may hold letters, digits, spaces and _+<>- and must not start with a space`, field);
  return value;
}
