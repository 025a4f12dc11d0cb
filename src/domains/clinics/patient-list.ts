import { createHash } from 'node:crypto';
import { invalid } from '../../kernel/errors';
import { Loader } from '../../kernel/loader';
import type { PageArgs, SortKey } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { arrayLiteral, likeEscaped, rowDate } from '../../kernel/sql';
import { sqlOf } from '../../infra/database/sql-runner';
import type { SummaryKind } from '../glucose/summary/buckets';
import { CLINIC_PERIOD_STATS_TABLE } from './clinic-patient-period-stats.entity';
import { PATIENT_ORDER, PATIENT_SEARCH_TEXT, type ClinicPatientRecord } from './clinic-patient.entity';
import { OBJECT_ID_PATTERN } from './clinic-ids';
import {
  filtersSummaries,
  isSummarySortValue,
  summarySql,
  SUMMARY_KINDS,
  type SummaryFilter,
  type SummarySortField,
  type SummaryPeriodRef,
} from './patient-filters';

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

/** The longest search text: longer ones describe no patient better and cost more trigrams. */
export const MAX_SEARCH_LENGTH = 100;

/** Each sort: its indexed expression (PATIENT_ORDER) and the SQL type its cursor value casts back to. */
const SORTS: Record<PatientSortField, { expression: string; type: string } | null> = {
  fullName: { expression: PATIENT_ORDER.fullName, type: 'text' },
  birthDate: { expression: PATIENT_ORDER.birthDate, type: 'date' },
  lastReviewed: { expression: PATIENT_ORDER.lastReviewed, type: 'timestamptz' },
  userId: null,
};

/** The sort of an order: a record field's indexed expression, or a summary statistic's. */
function sortOf(order: PatientOrder): { expression: string; type: string } | null {
  if (order.field in SORTS) return SORTS[order.field as PatientSortField];
  return summarySql(null, { field: order.field as SummarySortField, source: order.summary! }).sort;
}

/**
 * The FROM and WHERE of a list over `clinic_patients p` of the clinic `c.clinic_id` (one of the
 * clinics of a batch, CLINICS): its own conditions, then the summary joins and conditions
 * (`sorted` adds the join of a summary sort, which counts do not need).
 */
function where(
  filter: PatientFilter,
  order: PatientOrder | null = null,
): { from: string; sql: string; params: unknown[]; sort: { expression: string; type: string } | null } {
  const conditions = ['p.clinic_id = c.clinic_id'];
  const params: unknown[] = [];
  if (filter.search) {
    conditions.push(`${PATIENT_SEARCH_TEXT} like ?`);
    params.push(`%${likeEscaped(filter.search.toLowerCase())}%`);
  }
  if (filter.tags?.length) {
    conditions.push('p.tags @> ?::text[]');
    params.push(arrayLiteral(filter.tags));
  }
  if (filter.lastReviewed) {
    conditions.push('p.last_reviewed <= ?');
    params.push(filter.lastReviewed);
  }
  const summarySort = order && !(order.field in SORTS) ? order : null;
  if (!filtersSummaries(filter.summary) && !summarySort)
    return { from: 'clinic_patients p', sql: conditions.join(' and '), params, sort: order && sortOf(order) };
  const summary = summarySql(
    filter.summary,
    summarySort && { field: summarySort.field as SummarySortField, source: summarySort.summary! },
  );
  return {
    from: ['clinic_patients p', ...summary.joins].join(' '),
    sql: [...conditions, ...summary.conditions].join(' and '),
    params: [...params, ...summary.params],
    sort: summarySort ? summary.sort : order && sortOf(order),
  };
}

/** The sort key of a row as its cursor holds it: the sort value as PostgreSQL prints it, then the user id. */
export type PatientRow = ClinicPatientRecord & { sortValue: string | null };

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

/** The clinics of a batch, in the order asked: `c.clinic_id` and `c.position`, from one array parameter. */
const CLINICS = 'unnest(?::text[]) with ordinality as c(clinic_id, position)';

/** A page of the clinic's patients in `order`, one row more than asked, past `offset` of them. */
export function patientPage(
  scope: Scope,
  clinicId: string,
  filter: PatientFilter,
  order: PatientOrder,
  args: PageArgs,
): Promise<PatientRow[]> {
  return patientPages(scope, filter, order, args).load(clinicId);
}

/**
 * The pages of every clinic a request lists under one filter, order and page: one SELECT for
 * all of them (see selectPages).
 */
function patientPages(
  scope: Scope,
  filter: PatientFilter,
  order: PatientOrder,
  args: PageArgs,
): Loader<string, PatientRow[]> {
  return scope.loaders.get(`clinics.patientPages:${JSON.stringify([filter, order, args])}`, () => {
    return new Loader<string, PatientRow[]>(async (clinicIds) => {
      // A summary filter reads a statistic of every patient of the clinic: the first page counts the
      // matches in the same pass (a window over all of them), instead of a second pass for the count.
      const counted = !args.after && filtersSummaries(filter.summary);
      const rows = await selectPages(scope, clinicIds, filter, order, args, counted);
      const pages = new Map<string, PatientRow[]>(clinicIds.map((clinicId) => [clinicId, []]));
      for (const row of rows) pages.get(row.clinic_id as string)?.push(toPatient(row));
      if (counted) {
        const counts = patientCounts(scope);
        for (const clinicId of clinicIds) {
          const key = countKey(clinicId, filter);
          const firstRow = rows.find((row) => row.clinic_id === clinicId);
          if (!counts.has(key)) counts.set(key, Promise.resolve(firstRow ? Number(firstRow.full_count) : 0));
        }
      }
      return clinicIds.map((clinicId) => pages.get(clinicId)!);
    });
  });
}

/** What an export reads of a patient's record: what a file shows of it. */
export type ExportedRecord = Pick<PatientRow, 'userId' | 'fullName' | 'mrn' | 'birthDate' | 'email' | 'tags'>;

/** A patient of an export, with its rows of the clinic copy for one period by kind (none without one). */
export interface ExportedPatient {
  patient: ExportedRecord;
  periods: Partial<Record<SummaryKind, Record<string, unknown>>>;
}

/**
 * Every patient of the clinic the (checked) filter holds, in `order`, each with the `columns` of
 * its clinic-copy rows of one period: one statement read through a cursor, `fetchSize` rows at a
 * time (handed on as one array), at the reader's pace. (Keyset batches re-read the filter and
 * sort of the whole clinic for each batch, and the period rows in a statement of their own.)
 * Each period row travels as one JSON object: as a hundred columns, the driver's row objects
 * were most of the export's garbage. The patients are sorted before their period rows are
 * joined (a join per patient, `offset 0` keeping it one), so the sort moves keys, not JSON, and
 * the first row comes when the sort ends, not when every JSON object is made.
 */
export async function* exportedPatients(
  scope: Scope,
  clinicId: string,
  filter: PatientFilter,
  order: PatientOrder,
  { period, previous }: Pick<SummaryPeriodRef, 'period' | 'previous'>,
  columns: Readonly<Record<SummaryKind, readonly string[]>>,
  fetchSize: number,
): AsyncGenerator<ExportedPatient[]> {
  const { from, sql, params, sort } = where(filter, order);
  const direction = order.descending ? 'desc' : 'asc';
  const joins = SUMMARY_KINDS.map(
    (kind) =>
      `left join lateral (select ${columns[kind].map((column) => `s.${column}`).join(', ')}
         from ${CLINIC_PERIOD_STATS_TABLE} s
        where s.clinic_id = o.clinic_id and s.user_id = o.user_id and s.kind = '${kind}' and s.period = ? and s.previous = ?
       offset 0) export_${kind} on true`,
  );
  const rows = sqlOf(scope.em).stream<Record<string, unknown>>(
    `select o.user_id, o.full_name, o.birth_date, o.email, o.mrn, o.tags,
            ${SUMMARY_KINDS.map((kind) => `to_json(export_${kind}) as ${kind}`).join(', ')}
       from (select p.clinic_id, p.user_id, p.full_name, p.birth_date::text as birth_date, p.email, p.mrn, p.tags,
                    ${sort ? sort.expression : 'null'} as sort_key
               from ${CLINICS} cross join ${from}
              where ${sql}
              order by ${sort ? `${sort.expression} ${direction}, ` : ''}p.user_id ${direction}) o
       ${joins.join(' ')}
      order by ${sort ? `o.sort_key ${direction}, ` : ''}o.user_id ${direction}`,
    [arrayLiteral([clinicId]), ...params, period, previous, period, previous],
    fetchSize,
  );
  let patients: ExportedPatient[] = [];
  for await (const row of rows) {
    patients.push(exportedPatient(row));
    if (patients.length < fetchSize) continue;
    yield patients;
    patients = [];
  }
  if (patients.length) yield patients;
}

/** A row of exportedPatients' statement as the export reads it: a period row absent (null) is left out. */
function exportedPatient(row: Record<string, unknown>): ExportedPatient {
  const periods: ExportedPatient['periods'] = {};
  for (const kind of SUMMARY_KINDS) if (row[kind]) periods[kind] = row[kind] as Record<string, unknown>;
  const patient: ExportedRecord = {
    userId: row.user_id as string,
    fullName: row.full_name as string,
    mrn: row.mrn as string | null,
    birthDate: row.birth_date as string | null,
    email: row.email as string | null,
    tags: row.tags as string[],
  };
  return { patient, periods };
}

/** Each clinic's page read as its own keyset range, in one SELECT; `counted` adds each clinic's full count. */
function selectPages(
  scope: Scope,
  clinicIds: readonly string[],
  filter: PatientFilter,
  order: PatientOrder,
  args: PageArgs,
  counted: boolean,
): Promise<Record<string, unknown>[]> {
  const { first, after, offset = 0 } = args;
  const { from, sql, params, sort } = where(filter, order);
  const direction = order.descending ? 'desc' : 'asc';
  const compare = order.descending ? '<' : '>';
  const expression = sort?.expression ?? null;
  const keyset = !after
    ? ''
    : expression
      ? ` and (${expression}, p.user_id) ${compare} (?::${sort!.type}, ?)`
      : ` and p.user_id ${compare} ?`;
  return scope.em.getConnection().execute<Record<string, unknown>[]>(
    `select page.* from ${CLINICS} cross join lateral (
       select ${QUALIFIED_COLUMNS}, ${expression ? `(${expression})::text` : 'null'} as sort_value,
              ${expression ?? 'null'} as sort_key${counted ? ', count(*) over () as full_count' : ''}
         from ${from}
        where ${sql}${keyset}
        order by ${expression ? `${expression} ${direction}, ` : ''}p.user_id ${direction}
        limit ? offset ?) page
      order by c.position, ${expression ? `page.sort_key ${direction}, ` : ''}page.user_id ${direction}`,
    [arrayLiteral(clinicIds), ...params, ...(after ?? []), first + 1, offset],
  );
}

const patientCounts = (scope: Scope) =>
  scope.loaders.get('clinics.patientCounts', () => new Map<string, Promise<number>>());

const countKey = (clinicId: string, filter: PatientFilter) =>
  JSON.stringify([
    clinicId,
    filter.search || null,
    filter.tags?.length ? filter.tags : null,
    filter.lastReviewed ?? null,
    filter.summary ?? null,
  ]);

/** How many patients each clinic holds under one filter: one SELECT for the clinics a request counts. */
function patientCountLoader(scope: Scope, filter: PatientFilter): Loader<string, number> {
  return scope.loaders.get(`clinics.patientCountBatches:${countKey('', filter)}`, () => {
    return new Loader<string, number>(async (clinicIds) => {
      const { from, sql, params } = where(filter);
      const rows = await scope.em
        .getConnection()
        .execute<{ count: string }[]>(
          `select (select count(*) from ${from} where ${sql}) as count from ${CLINICS} order by c.position`,
          [...params, arrayLiteral(clinicIds)],
        );
      return rows.map((row) => Number(row.count));
    });
  });
}

/**
 * How many of the clinic's patients the filter holds, counted once per request: the REST list
 * asks both the filtered count and the clinic's, which are the same count when nothing filters.
 */
export function countPatients(scope: Scope, clinicId: string, filter: PatientFilter = {}): Promise<number> {
  const counts = patientCounts(scope);
  const key = countKey(clinicId, filter);
  let count = counts.get(key);
  if (!count) {
    count = patientCountLoader(scope, filter).load(clinicId);
    counts.set(key, count);
  }
  return count;
}

/** The columns of a patient row; the birth date as text (`YYYY-MM-DD`), not a driver Date at local midnight. */
export const PATIENT_COLUMNS =
  'clinic_id, user_id, full_name, birth_date::text as birth_date, email, mrn, tags, permissions, reviews, last_reviewed, created_time, updated_time';
const QUALIFIED_COLUMNS = PATIENT_COLUMNS.split(', ')
  .map((column) => `p.${column}`)
  .join(', ');

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
