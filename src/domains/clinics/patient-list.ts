import { createHash } from 'node:crypto';
import { invalid } from '../../kernel/errors';
import type { SortKey } from '../../kernel/paging';
import { PATIENT_ORDER } from './clinic-patient.entity';
import { OBJECT_ID_PATTERN } from './clinic-ids';
import {
  isSummarySortValue,
  summarySql,
  type SummaryFilter,
  type SummarySortField,
  type SummaryPeriodRef,
} from './patient-filters';
import type { PatientRow } from './patients.repository';

/** What the patient list sorts by; `userId` is the default (the primary key's order). */
export const PATIENT_SORT_FIELDS = ['fullName', 'birthDate', 'lastReviewed', 'userId'] as const;
export type PatientSortField = (typeof PATIENT_SORT_FIELDS)[number];

export interface PatientOrder {
  /** A field of the patient record, or a statistic or date of a summary period (with `summary`). */
  field: PatientSortField | SummarySortField;
  descending: boolean;
  /** The summary period a summary field is read from (checked: see checkSummarySort). */
  summary?: SummaryPeriodRef | null;
}

/** Which patients of a clinic a list holds. */
export interface PatientFilter {
  /** A substring of name, email or MRN, any letter case. */
  search?: string | null;
  /** Tag ids a patient carries all of. */
  tags?: readonly string[] | null;
  /** Last reviewed at or before this time (inclusive); patients never reviewed are left out. */
  lastReviewed?: Date | null;
  /** Conditions on the patients' glucose summaries (checked: see checkSummaryFilter). */
  summary?: SummaryFilter | null;
}

/**
 * What a page of the list reads beside its records, for a caller that answers them too (the REST
 * list: its `meta.count`, `meta.totalCount` and each patient's `summary`).
 */
export interface PageCompanions {
  /**
   * The list's count and the clinic's total, started by the service (PatientsService.list) with
   * the page rather than read in its statement: each is a statement of its own, or the total kept
   * between requests (ClinicTotals). Counting passes over every patient of the clinic, the page
   * over a few of them: apart, the counts take other connections (and another core of
   * PostgreSQL's) instead of holding the page back until they end.
   */
  counts?: boolean;
  /** Each patient's summaries with one side of their clinic copy (the glucose service's clinicCopiesOfClinicPatient). */
  clinicCopies?: { previous: boolean };
}

/** The longest search text: longer ones describe no patient better and cost more trigrams. */
export const MAX_SEARCH_LENGTH = 100;

/** Each sort: its indexed expression (PATIENT_ORDER) and the SQL type its cursor value casts back to. */
export const SORTS: Record<PatientSortField, { expression: string; type: string } | null> = {
  fullName: { expression: PATIENT_ORDER.fullName, type: 'text' },
  birthDate: { expression: PATIENT_ORDER.birthDate, type: 'date' },
  lastReviewed: { expression: PATIENT_ORDER.lastReviewed, type: 'timestamptz' },
  userId: null,
};

/** The sort of an order: a record field's indexed expression, or a summary statistic's. */
export function sortOf(order: PatientOrder): { expression: string; type: string } | null {
  if (order.field in SORTS) return SORTS[order.field as PatientSortField];
  return summarySql(null, { field: order.field as SummarySortField, source: order.summary! }).sort;
}

/** The sort key of a row as its cursor holds it: the sort value as PostgreSQL prints it, then the user id. */
export const patientKey =
  (order: PatientOrder) =>
  (row: PatientRow): SortKey =>
    order.field === 'userId' ? [row.userId] : [row.sortValue ?? '', row.userId];

/** A cursor key of this order: a user id, or a sort value and a user id. */
export const isPatientKey = (order: PatientOrder) => (key: SortKey) => {
  const last = key[key.length - 1];
  const sort = order.field === 'userId' ? null : sortOf(order);
  const width = sort === null ? 1 : 2;
  return (
    key.length === width &&
    key.every((part) => typeof part === 'string') &&
    typeof last === 'string' &&
    last.length <= 36 &&
    // A summary sort's value is cast back to a number or time: refuse what would not cast.
    (sort === null || order.field in SORTS || isSummarySortValue(sort.type as 'float8', key[0] as string))
  );
};

/**
 * A list's identity for its cursors: a cursor of one filter and order is refused by another. The
 * filter is hashed, so a long search or many tags cannot push a cursor past its size bound.
 */
export const patientListName = (clinicId: string, filter: PatientFilter, order: PatientOrder) => {
  const shape = JSON.stringify([
    filter.search ?? null,
    filter.tags ?? null,
    filter.lastReviewed ?? null,
    filter.summary ?? null,
    order,
  ]);
  return `clinicPatients:${clinicId}:${createHash('sha256').update(shape).digest('base64url').slice(0, 16)}`;
};

/** Tag ids of a list filter: 24-hex each, as the REST `tags` parameter and the GraphQL filter take them. */
export function assertFilterTags(tags: readonly string[], field = 'tags'): string[] {
  tags.forEach((tag, index) => {
    if (!OBJECT_ID_PATTERN.test(tag))
      throw invalid(`${field}[${index}] is not a tag id: 24 lowercase hexadecimal characters`, field);
  });
  return [...new Set(tags)];
}
