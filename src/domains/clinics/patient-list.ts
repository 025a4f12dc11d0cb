import { createHash } from 'node:crypto';
import { invalid } from '../../kernel/errors';
import type { PageArgs, SortKey } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { arrayLiteral, likeEscaped, rowDate } from '../../kernel/sql';
import { PATIENT_ORDER, PATIENT_SEARCH_TEXT, type ClinicPatientRecord } from './clinic-patient.entity';
import { OBJECT_ID_PATTERN } from './clinic-ids';

/** What the patient list sorts by; `userId` is the default (the primary key's order). */
export const PATIENT_SORT_FIELDS = ['fullName', 'birthDate', 'lastReviewed', 'userId'] as const;
export type PatientSortField = (typeof PATIENT_SORT_FIELDS)[number];

export interface PatientOrder {
  field: PatientSortField;
  descending: boolean;
}

/** Which patients of a clinic a list holds. */
export interface PatientFilter {
  /** A substring of name, email or MRN, any letter case. */
  search?: string | null;
  /** Tag ids a patient carries all of. */
  tags?: readonly string[] | null;
  /** Last reviewed at or before this time (inclusive); patients never reviewed are left out. */
  lastReviewed?: Date | null;
}

/** The longest search text: longer ones describe no patient better and cost more trigrams. */
export const MAX_SEARCH_LENGTH = 100;

/** Each sort: its indexed expression (PATIENT_ORDER) and the SQL type its cursor value casts back to. */
const SORTS: Record<PatientSortField, { expression: string; type: string } | null> = {
  fullName: { expression: PATIENT_ORDER.fullName, type: 'text' },
  birthDate: { expression: PATIENT_ORDER.birthDate, type: 'date' },
  lastReviewed: { expression: PATIENT_ORDER.lastReviewed, type: 'timestamptz' },
  userId: null,
};

/** `%`, `_` and `\` match themselves in a search. */

function where(clinicId: string, filter: PatientFilter): { sql: string; params: unknown[] } {
  const conditions = ['clinic_id = ?'];
  const params: unknown[] = [clinicId];
  if (filter.search) {
    conditions.push(`${PATIENT_SEARCH_TEXT} like ?`);
    params.push(`%${likeEscaped(filter.search.toLowerCase())}%`);
  }
  if (filter.tags?.length) {
    conditions.push('tags @> ?::text[]');
    params.push(arrayLiteral(filter.tags));
  }
  if (filter.lastReviewed) {
    conditions.push('last_reviewed <= ?');
    params.push(filter.lastReviewed);
  }
  return { sql: conditions.join(' and '), params };
}

/** The sort key of a row as its cursor holds it: the sort value as PostgreSQL prints it, then the user id. */
export type PatientRow = ClinicPatientRecord & { sortValue: string | null };

export const patientKey =
  (order: PatientOrder) =>
  (row: PatientRow): SortKey =>
    SORTS[order.field] === null ? [row.userId] : [row.sortValue ?? '', row.userId];

/** A cursor key of this order: a user id, or a sort value and a user id. */
export const isPatientKey = (order: PatientOrder) => (key: SortKey) => {
  const last = key[key.length - 1];
  const width = SORTS[order.field] === null ? 1 : 2;
  return (
    key.length === width &&
    key.every((part) => typeof part === 'string') &&
    typeof last === 'string' &&
    last.length <= 36
  );
};

/**
 * A list's identity for its cursors: a cursor of one filter and order is refused by another. The
 * filter is hashed, so a long search or many tags cannot push a cursor past its size bound.
 */
export const patientListName = (clinicId: string, filter: PatientFilter, order: PatientOrder) => {
  const shape = JSON.stringify([filter.search ?? null, filter.tags ?? null, filter.lastReviewed ?? null, order]);
  return `clinicPatients:${clinicId}:${createHash('sha256').update(shape).digest('base64url').slice(0, 16)}`;
};

/** A page of the clinic's patients in `order`, one row more than asked. */
export async function patientPage(
  scope: Scope,
  clinicId: string,
  filter: PatientFilter,
  order: PatientOrder,
  { first, after }: PageArgs,
): Promise<PatientRow[]> {
  const { sql, params } = where(clinicId, filter);
  const sort = SORTS[order.field];
  const direction = order.descending ? 'desc' : 'asc';
  const compare = order.descending ? '<' : '>';
  const expression = sort?.expression ?? null;
  const keyset = !after
    ? ''
    : expression
      ? ` and (${expression}, user_id) ${compare} (?::${sort!.type}, ?)`
      : ` and user_id ${compare} ?`;
  const rows = await scope.em.getConnection().execute<Record<string, unknown>[]>(
    `select ${PATIENT_COLUMNS}, ${expression ? `(${expression})::text` : 'null'} as sort_value
       from clinic_patients
      where ${sql}${keyset}
      order by ${expression ? `${expression} ${direction}, ` : ''}user_id ${direction}
      limit ?`,
    [...params, ...(after ?? []), first + 1],
  );
  return rows.map((row) => toPatient(row));
}

/**
 * How many of the clinic's patients the filter holds, counted once per request: the REST list
 * asks both the filtered count and the clinic's, which are the same count when nothing filters.
 */
export function countPatients(scope: Scope, clinicId: string, filter: PatientFilter = {}): Promise<number> {
  const counts = scope.loaders.get('clinics.patientCounts', () => new Map<string, Promise<number>>());
  const key = JSON.stringify([
    clinicId,
    filter.search || null,
    filter.tags?.length ? filter.tags : null,
    filter.lastReviewed ?? null,
  ]);
  let count = counts.get(key);
  if (!count) {
    const { sql, params } = where(clinicId, filter);
    count = scope.em
      .getConnection()
      .execute<{ count: string }[]>(`select count(*) as count from clinic_patients where ${sql}`, params)
      .then(([row]) => Number(row.count));
    counts.set(key, count);
  }
  return count;
}

/** The columns of a patient row; the birth date as text (`YYYY-MM-DD`), not a driver Date at local midnight. */
export const PATIENT_COLUMNS =
  'clinic_id, user_id, full_name, birth_date::text as birth_date, email, mrn, tags, permissions, reviews, last_reviewed, created_time, updated_time';

/** A row of clinic_patients (selected as PATIENT_COLUMNS) as the domain reads it. */
export function toPatient(row: Record<string, unknown>): PatientRow {
  return {
    clinicId: row.clinic_id as string,
    userId: row.user_id as string,
    fullName: row.full_name as string,
    birthDate: (row.birth_date as string | null) ?? null,
    email: (row.email as string | null) ?? null,
    mrn: (row.mrn as string | null) ?? null,
    tags: row.tags as string[],
    permissions: row.permissions as ClinicPatientRecord['permissions'],
    reviews: row.reviews as ClinicPatientRecord['reviews'],
    lastReviewed: rowDate(row.last_reviewed),
    createdTime: rowDate(row.created_time)!,
    updatedTime: rowDate(row.updated_time)!,
    sortValue: (row.sort_value as string | null) ?? null,
  } as PatientRow;
}

/** Tag ids of a list filter: 24-hex each, as the REST `tags` parameter and the GraphQL filter take them. */
export function assertFilterTags(tags: readonly string[], field = 'tags'): string[] {
  tags.forEach((tag, index) => {
    if (!OBJECT_ID_PATTERN.test(tag))
      throw invalid(`${field}[${index}] is not a tag id: 24 lowercase hexadecimal characters`, field);
  });
  return [...new Set(tags)];
}
