import type { EntityManager } from '@mikro-orm/postgresql';
import { staleReadsOf } from '../../infra/database/sql-runner';
import type { PageArgs, SortKey } from '../../kernel/paging';
import { arrayLiteral, likeEscaped, readsOf, type StaleOption } from '../../kernel/sql';
import { clinicCopyJoins } from '../glucose/summaries.repository';
import type { SummaryKind } from '../glucose/summary/buckets';
import { CLINIC_PERIOD_STATS_TABLE } from './clinic-patient-period-stats.entity';
import { PATIENT_SEARCH_TEXT } from './clinic-patient.entity';
import { SORTS, sortOf, type PageCompanions, type PatientFilter, type PatientOrder } from './patient-list';
import {
  copySql,
  filtersSummaries,
  summarySql,
  type CopySql,
  SUMMARY_KINDS,
  type SummaryPeriodRef,
  type SummarySortField,
} from './patient-filters';
import { PATIENT_COLUMNS, type PatientRow } from './patients.repository';

/**
 * The patient list's statements: its pages, counts and exports, over `clinic_patients` and the
 * clinic's copy of the period statistics (`clinic_patient_period_stats`), whose summary filters
 * and sorts patient-filters.ts writes. The rules of the list (its orders, keys and names) are in
 * patient-list.ts; this holds the statements. Every read here tolerates a little staleness and
 * may run on a streaming replica (staleReadsOf, src/infra/database/sql-runner.ts).
 */

/**
 * The database functions and triggers that keep `clinic_patient_period_stats` equal to
 * `glucose_period_stats` joined with `clinic_patients`, in the transaction of whatever writes
 * either side (migrations/Migration20261125020000_clinic_patient_period_stats.ts): no code writes
 * the copy. And the trigger that announces its changes. clinic-patient-period-stats.test.ts checks
 * that they exist and keep it.
 */
export const CLINIC_PERIOD_STATS_TRIGGERS = {
  /** A statistics write: rows removed leave every clinic's copy, rows added join the copy of each clinic of the user. */
  followStats: {
    function: 'clinic_period_stats_follow_stats',
    triggers: [
      'clinic_period_stats_on_stats_insert',
      'clinic_period_stats_on_stats_update',
      'clinic_period_stats_on_stats_delete',
    ],
    on: 'glucose_period_stats',
  },
  /** A patient joining a clinic brings their rows into its copy; one leaving (or deleted) takes them out. */
  followPatients: {
    function: 'clinic_period_stats_follow_patients',
    triggers: ['clinic_period_stats_on_patient_insert', 'clinic_period_stats_on_patient_delete'],
    on: 'clinic_patients',
  },
  /** A patient record's key changed: its rows move with it. */
  movePatient: {
    function: 'clinic_period_stats_move_patient',
    triggers: ['clinic_period_stats_on_patient_key_update'],
    on: 'clinic_patients',
  },
  /**
   * Any change to the copy names its clinic on `islet_clinic_statistics_changed`, for the counts
   * kept between requests (clinic-totals.ts; migrations/Migration20261128190000_clinic_statistics_notices.ts).
   */
  announceChanges: {
    function: 'clinic_period_stats_announce_change',
    triggers: [
      'clinic_period_stats_announce_insert',
      'clinic_period_stats_announce_update',
      'clinic_period_stats_announce_delete',
    ],
    on: 'clinic_patient_period_stats',
  },
} as const;

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

/** The clinics of a batch, in the order asked: `c.clinic_id` and `c.position`, from one array parameter. */
const CLINICS = 'unnest(?::text[]) with ordinality as c(clinic_id, position)';

/** A page's patients with their data sources, which the page's loader primes (data-sources.loaders.ts). */
export const PAGE_COLUMNS = [...PATIENT_COLUMNS.split(', '), 'data_sources'].map((column) => `p.${column}`).join(', ');

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
  em: EntityManager,
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
  const rows = staleReadsOf(em).stream<Record<string, unknown>>(
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

/**
 * The list's patients read from the clinic copy alone (patient-filters.ts copySql), for the
 * clinic `c.clinic_id` of a batch: when summary conditions are all that filter it (no search,
 * tags or review date), else null.
 */
function copyWhere(filter: PatientFilter, order: PatientOrder | null = null): CopySql | null {
  if (filter.search || filter.tags?.length || filter.lastReviewed) return null;
  const summarySort = order && !(order.field in SORTS) ? order : null;
  return copySql(
    filter.summary,
    summarySort && { field: summarySort.field as SummarySortField, source: summarySort.summary! },
    'c.clinic_id',
  );
}

/** The clinic's count of the list's patients, as a `count` column of a subquery on `c.clinic_id`. */
function countSql(filter: PatientFilter): { sql: string; params: unknown[] } {
  const copy = copyWhere(filter);
  if (copy)
    return { sql: `select count(*) from ${copy.from} where ${copy.conditions.join(' and ')}`, params: copy.params };
  const { from, sql, params } = where(filter);
  return { sql: `select count(*) from ${from} where ${sql}`, params };
}

/**
 * Each clinic's page read as its own keyset range, in one SELECT; `counted` adds each clinic's
 * full count (`full_count`). A clinic whose page is empty still has a row, its page's columns
 * null, carrying its counts (`listed_clinic_id` names the clinic of every row).
 *
 * A list filtered by summaries alone (copyWhere) is counted in the clinic copy and, sorted by a
 * statistic, paged there too, then the page's records are read by key. For the statistics the
 * copy's list index holds (patient-list-indexes.ts) neither touches a row of the copy: the count
 * is one pass over the clinic's index entries, and the page the first entries meeting the
 * filter in the order the index keys (or a top-N sort of the entries for another sort). Other
 * lists join every patient's record to the copy, and are counted by a window over that pass
 * when the copy cannot count them.
 */
export function selectPages(
  em: EntityManager,
  clinicIds: readonly string[],
  filter: PatientFilter,
  order: PatientOrder,
  args: PageArgs,
  counted: boolean,
  companions: PageCompanions = {},
): Promise<Record<string, unknown>[]> {
  const { first, after, offset = 0 } = args;
  const direction = order.descending ? 'desc' : 'asc';
  const compare = order.descending ? '<' : '>';
  const count = counted && copyWhere(filter) ? countSql(filter) : null;
  const copyPage = copyWhere(filter, order);
  const page = copyPage?.sort
    ? copyPageSql(copyPage, direction, compare, after)
    : recordPageSql(filter, order, direction, compare, after, counted && !count);
  const also = companionsSql(companions);
  return staleReadsOf(em).rows(
    `select c.clinic_id as listed_clinic_id, page.*${count ? ', counted.count as full_count' : ''}${also.columns} from ${CLINICS}
       ${count ? `cross join lateral (${count.sql}) counted` : ''}
       left join lateral (${page.sql}) page on true ${also.joins}
      order by c.position, ${page.sorted ? `page.sort_key ${direction}, ` : ''}page.user_id ${direction}`,
    [arrayLiteral(clinicIds), ...(count?.params ?? []), ...page.params, first + 1, offset],
  );
}

/**
 * The columns and joins of a page's companions, after the page's own: the revisions of the
 * clinic copies of the patients that grant the clinic something (the glucose domain's joins,
 * clinicCopyJoins; a patient granting nothing shows no summary). Its counts are read apart.
 */
function companionsSql({ clinicCopies }: PageCompanions): { columns: string; joins: string } {
  const copies = clinicCopies && clinicCopyJoins('case when cardinality(page.permissions) > 0 then page.user_id end');
  return { columns: copies ? `, ${copies.columns}` : '', joins: copies?.joins ?? '' };
}

/** A page's subquery and its parameters before its limit and offset; `sorted`: it has a sort key. */
interface PageSql {
  sql: string;
  params: unknown[];
  sorted: boolean;
}

/** A page found in the clinic copy by its summary sort, then its patients' records read by key. */
function copyPageSql(copy: CopySql, direction: string, compare: string, after: SortKey | null): PageSql {
  const { expression, type } = copy.sort!;
  const keyset = after ? ` and (${expression}, ${copy.alias}.user_id) ${compare} (?::${type}, ?)` : '';
  return {
    sql: `select ${PAGE_COLUMNS}, found.sort_value, found.sort_key
       from (select ${copy.alias}.clinic_id, ${copy.alias}.user_id, (${expression})::text as sort_value,
                    ${expression} as sort_key
               from ${copy.from}
              where ${copy.conditions.join(' and ')}${keyset}
              order by ${expression} ${direction}, ${copy.alias}.user_id ${direction}
              limit ? offset ?) found
       join clinic_patients p on p.clinic_id = found.clinic_id and p.user_id = found.user_id`,
    params: [...copy.params, ...(after ?? [])],
    sorted: true,
  };
}

/** A page read from the patients' records joined to the copy; `windowed` counts every match in the same pass. */
function recordPageSql(
  filter: PatientFilter,
  order: PatientOrder,
  direction: string,
  compare: string,
  after: SortKey | null,
  windowed: boolean,
): PageSql {
  const { from, sql, params, sort } = where(filter, order);
  const expression = sort?.expression ?? null;
  const keyset = !after
    ? ''
    : expression
      ? ` and (${expression}, p.user_id) ${compare} (?::${sort!.type}, ?)`
      : ` and p.user_id ${compare} ?`;
  return {
    sql: `select ${PAGE_COLUMNS}, ${expression ? `(${expression})::text` : 'null'} as sort_value,
              ${expression ?? 'null'} as sort_key${windowed ? ', count(*) over () as full_count' : ''}
         from ${from}
        where ${sql}${keyset}
        order by ${expression ? `${expression} ${direction}, ` : ''}p.user_id ${direction}
        limit ? offset ?`,
    params: [...params, ...(after ?? [])],
    sorted: expression !== null,
  };
}

/**
 * How many patients each clinic holds under one filter, in the order asked: one SELECT, on a
 * replica unless `stale` is false (a count kept between requests must not predate the notice
 * that made it be read again).
 */
export async function countPatientsOf(
  em: EntityManager,
  clinicIds: readonly string[],
  filter: PatientFilter,
  { stale = true }: StaleOption = {},
): Promise<number[]> {
  const count = countSql(filter);
  const rows = await readsOf(em, { stale }).rows<{ count: string }>(
    `select (${count.sql}) as count from ${CLINICS} order by c.position`,
    [...count.params, arrayLiteral(clinicIds)],
  );
  return rows.map((row) => Number(row.count));
}
