import { invalid } from '../../kernel/errors';
import type { Scope } from '../../kernel/scope';
import { parseDateTime } from '../../kernel/validation';
import type { PeriodKey } from '../glucose/summary/periods';
import { clinicUnits } from './clinics.loaders';
import { OBJECT_ID_PATTERN } from './clinic-ids';
import {
  checkSummaryFilter,
  checkSummarySort,
  filtersSummaries,
  isSummarySortField,
  parseSummaryParameters,
  SUMMARY_KINDS,
  type Comparison,
  type SummaryFilter,
  type SummarySortSource,
} from './patient-filters';
import { assertFilterTags, MAX_SEARCH_LENGTH, type PatientFilter, type PatientOrder } from './patient-list';

/**
 * Tidepool's patient-list query string (`search`, `tags`, `lastReviewed`, `sort`, and the
 * summary parameters of patient-filters.ts) both ways: parsed into what the patients service
 * takes (the JSON list and its CSV read it), and written back from a checked list (the CSV
 * link GraphQL hands out). One place, so the two directions cannot drift.
 */

/** An order as a caller asks it: a statistic sort names its summary, checked later (checkSummarySort). */
export type RequestedOrder = Omit<PatientOrder, 'summary'> & { summary?: SummarySortSource | null };

/** Tidepool's order when the query names none: by account id. */
export const BY_ACCOUNT_ID: RequestedOrder = { field: 'userId', descending: false };

/** The list a query string asks for, and the summary period it reads (`period`, `offsetPeriods`). */
export interface PatientListQuery {
  filter: PatientFilter;
  /** Null: Tidepool's default, by account id. */
  order: RequestedOrder | null;
  period: PeriodKey;
  previous: boolean;
}

const SUMMARY_PARAMETERS = ['sortType', 'period', 'offsetPeriods'];
/** `+` or `-` (a `+` in a query string reads as a space) and the sort field. */
const SORT = /^[+ -]([A-Za-z]+)$/;
const RECORD_SORTS = ['fullName', 'birthDate', 'lastReviewed'];

/** Whether a query parameter is one of the summary filters and sorts (`cgm.*`, `bgm.*`, sortType, period, offsetPeriods). */
export const isSummaryParameter = (name: string): boolean =>
  name.startsWith('cgm.') || name.startsWith('bgm.') || SUMMARY_PARAMETERS.includes(name);

/**
 * The list asked by Tidepool's query parameters, each given once (`parameters`; `tags` already
 * split into its ids). Anything malformed is refused naming its parameter. Summary bounds are
 * in mmol/L, as Tidepool's are whatever the clinic prefers.
 */
export function parsePatientListQuery(
  parameters: Readonly<Record<string, string | undefined>>,
  tags: readonly string[] | undefined,
): PatientListQuery {
  const summaryParameters = Object.fromEntries(Object.entries(parameters).filter(([name]) => isSummaryParameter(name)));
  const summary = parseSummaryParameters(summaryParameters);
  const { sort } = parameters;
  const field = sort === undefined ? undefined : SORT.exec(sort)?.[1];
  if (sort !== undefined && !(field && (RECORD_SORTS.includes(field) || isSummarySortField(field))))
    throw invalid(
      'sort must be + or - followed by fullName, birthDate, lastReviewed, or (with sortType) lastData, lastUploadDate, firstData, outdatedSince or a summary statistic',
      'sort',
    );
  const sortSource =
    field && !RECORD_SORTS.includes(field)
      ? checkSummarySort(field, summary.sortSource, 'sort', 'sortType (cgm or bgm)')
      : null;
  tags?.forEach((tag) => {
    if (!OBJECT_ID_PATTERN.test(tag))
      throw invalid('tags must be patient tag ids: 24 lowercase hexadecimal characters', 'tags');
  });
  const { lastReviewed, period = '14d', offsetPeriods } = parameters;
  return {
    filter: {
      search: parameters.search ?? null,
      tags: tags ?? null,
      lastReviewed: lastReviewed === undefined ? null : parseDateTime(lastReviewed, 'lastReviewed'),
      summary: summary.filter && { ...summary.filter, units: 'MMOL_L' },
    },
    order: field
      ? { field: field as PatientOrder['field'], descending: sort!.startsWith('-'), summary: sortSource }
      : null,
    period: period as PeriodKey,
    previous: offsetPeriods === 'true',
  };
}

/**
 * The list asked, checked as the patients service serves it: tags, search, summary bounds
 * (converted to mmol/L from their units, the clinic's when not given) and the sort.
 */
export async function checkPatientList(
  scope: Scope,
  clinicId: string,
  filter: PatientFilter,
  requested: RequestedOrder,
): Promise<{ filter: PatientFilter; order: PatientOrder }> {
  const checked: PatientFilter = {
    search: filter.search?.trim() || null,
    tags: filter.tags?.length ? assertFilterTags(filter.tags, 'filter.tags') : null,
    lastReviewed: filter.lastReviewed ?? null,
    summary: filter.summary
      ? checkSummaryFilter({ ...filter.summary, units: filter.summary.units ?? (await clinicUnits(scope, clinicId)) })
      : null,
  };
  if ((checked.search?.length ?? 0) > MAX_SEARCH_LENGTH)
    throw invalid(`search must be at most ${MAX_SEARCH_LENGTH} characters`, 'filter.search');
  const order: PatientOrder = {
    field: requested.field,
    descending: requested.descending,
    summary: isSummarySortField(requested.field) ? checkSummarySort(requested.field, requested.summary) : null,
  };
  return { filter: checked, order };
}

const SYMBOLS: Record<keyof Comparison, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/**
 * A bound as the query's decimal number: Tidepool's filters take no exponent, so a tiny bound
 * is written out in full (1e-7 → 0.0000001); one too large to write so is refused.
 */
function decimal(value: number, field: string): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  if (Math.abs(value) >= 1e21) throw invalid(`${field} is out of range`, field);
  return value.toFixed(100).replace(/\.?0+$/, '');
}

/** A checked summary filter's conditions as `cgm.<statistic>` parameters: one bound each, as Tidepool's take. */
function summaryParameters(summary: SummaryFilter | null | undefined, search: URLSearchParams): void {
  for (const kind of SUMMARY_KINDS) {
    const given = summary?.[kind];
    if (!given) continue;
    for (const [name, comparison] of Object.entries(given.statistics ?? {})) {
      const field = `filter.${kind}.${name}`;
      const bounds = Object.entries(comparison ?? {}).filter(([, value]) => value !== null && value !== undefined);
      if (bounds.length !== 1)
        throw invalid(`${field}: the CSV link takes one bound per statistic, as the REST list's filters do`, field);
      const [operator, value] = bounds[0]! as [keyof Comparison, number];
      search.set(`${kind}.${name}`, `${SYMBOLS[operator]}${decimal(value, field)}`);
    }
    if (given.lastDataFrom) search.set(`${kind}.lastDataFrom`, given.lastDataFrom.toISOString());
    if (given.lastDataTo) search.set(`${kind}.lastDataTo`, given.lastDataTo.toISOString());
  }
}

/**
 * The query string of a checked list (see checkPatientList) with its summary period, such that
 * parsePatientListQuery reads the same list back. The REST list has one period for its filters,
 * its sort and its statistics, and sorts by account id only ascending: a list it cannot say is
 * refused naming what differs.
 */
export function patientListSearch(list: PatientListQuery & { order: PatientOrder }): URLSearchParams {
  const { filter, order, period, previous } = list;
  const search = new URLSearchParams();
  if (filter.search) search.set('search', filter.search);
  if (filter.tags?.length) search.set('tags', filter.tags.join(','));
  if (filter.lastReviewed) search.set('lastReviewed', filter.lastReviewed.toISOString());
  const samePeriod = (read: { period?: PeriodKey | null; previous?: boolean | null }) =>
    (read.period ?? '14d') === period && (read.previous ?? false) === previous;
  if (filtersSummaries(filter.summary) && !samePeriod(filter.summary!))
    throw invalid('filter.period: the CSV link reads one period for its filters, sort and statistics', 'filter.period');
  summaryParameters(filter.summary, search);
  if (order.field === 'userId' && order.descending)
    throw invalid('orderBy: the CSV link sorts by account id only in ascending order', 'orderBy');
  if (order.field !== 'userId') search.set('sort', `${order.descending ? '-' : '+'}${order.field}`);
  if (order.summary) {
    if (!samePeriod(order.summary))
      throw invalid('orderBy.period: the CSV link reads one period for its filters, sort and statistics', 'orderBy');
    search.set('sortType', order.summary.kind);
  }
  search.set('period', period);
  if (previous) search.set('offsetPeriods', 'true');
  return search;
}
