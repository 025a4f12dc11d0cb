import { invalid } from '../../kernel/errors';
import { parseDateTime } from '../../kernel/validation';
import {
  FILTERABLE_STATS,
  isFractionStat,
  isGlucoseStat,
  isIntegerStat,
  STAT_COLUMNS,
  type ExportedStatName,
} from '../glucose/period-stats';
import { isPeriodKey, PERIODS, type PeriodKey } from '../glucose/summary/periods';
import { toMmol, type GlucoseUnits } from '../glucose/summary/units';
import { summaryJoins } from '../glucose/summaries.repository';
import { CLINIC_PERIOD_STATS_TABLE } from './clinic-patient-period-stats.entity';

/**
 * The patient list's glucose summary filters and sorts (Tidepool's `cgm.*`/`bgm.*` filters,
 * `sortType`, `period`, `offsetPeriods`): statistics of one period of the patients' CGM or BGM
 * summaries, as clinics see them. A statistic the clinic copy leaves out (too little data) is
 * NULL, so no comparison matches it, and a patient without that summary matches no filter on it.
 */

export type SummaryKind = 'cgm' | 'bgm';
export const SUMMARY_KINDS: readonly SummaryKind[] = ['cgm', 'bgm'];

/** Bounds on one statistic; all given must hold. */
export interface Comparison {
  gt?: number | null;
  gte?: number | null;
  lt?: number | null;
  lte?: number | null;
}

/** The filters on one kind of summary. */
export interface KindFilter {
  /** Statistic name → the bounds its value must meet. */
  statistics?: Partial<Record<string, Comparison | null>> | null;
  /** The newest reading at or after this time. */
  lastDataFrom?: Date | null;
  /** The newest reading before this time. */
  lastDataTo?: Date | null;
}

/** The summary part of a patient filter: one period of each kind, or the period before it. */
export interface SummaryFilter {
  /**
   * The unit of glucose bounds (on averageGlucose, standardDeviation, min, max and their deltas;
   * averageGlucoseMmol's are always in mmol/L); mmol/L when omitted. Checked filters hold mmol/L.
   */
  units?: GlucoseUnits | null;
  /** `1d`, `7d`, `14d` (the default) or `30d`. */
  period?: PeriodKey | null;
  /** The period just before (Tidepool's offsetPeriods). */
  previous?: boolean | null;
  cgm?: KindFilter | null;
  bgm?: KindFilter | null;
}

/** One period of one kind of summary, checked. */
export interface SummaryPeriodRef {
  kind: SummaryKind;
  period: PeriodKey;
  previous: boolean;
}

/** The summary dates a list sorts by: of the period's statistics, or of the summary itself. */
const PERIOD_DATES = { lastData: 'last_data', lastUploadDate: 'last_upload_date' } as const;
const SUMMARY_DATES = { firstData: 'first_data', outdatedSince: 'outdated_since' } as const;
type DateSortField = keyof typeof PERIOD_DATES | keyof typeof SUMMARY_DATES;
const isDateSort = (field: string): field is DateSortField => field in PERIOD_DATES || field in SUMMARY_DATES;

/** What a list sorts by besides the patient record: a statistic or date of one summary period. */
export type SummarySortField = ExportedStatName | DateSortField;

/** Which summary period a statistic sort reads. */
export interface SummarySortSource {
  kind: SummaryKind;
  period?: PeriodKey | null;
  previous?: boolean | null;
}

export const DEFAULT_PERIOD: PeriodKey = '14d';
const OPERATORS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
type Operator = keyof typeof OPERATORS;
const SYMBOLS: Record<string, Operator> = { '>': 'gt', '>=': 'gte', '<': 'lt', '<=': 'lte' };

/** `>`, `>=`, `<` or `<=` and a decimal number (sign, fraction and a leading dot allowed). */
const FLOAT_FILTER = /^(>=|>|<=|<)([+-]?(?:\d+(?:\.\d*)?|\.\d+))$/;
/** `>`, `>=`, `<` or `<=` and an integer. */
const INT_FILTER = /^(>=|>|<=|<)([+-]?\d+)$/;
const INT_MAX = 2 ** 31 - 1;

/** The statistic `name` of a kind's summaries, or null when clinics cannot filter or sort on it. */
export function summaryStatistic(kind: SummaryKind, name: string): ExportedStatName | null {
  return (FILTERABLE_STATS[kind] as readonly string[]).includes(name) ? (name as ExportedStatName) : null;
}

export const isSummarySortField = (field: string): boolean =>
  isDateSort(field) || summaryStatistic('cgm', field) !== null;

/**
 * A Tidepool filter value (`>0.04`, `<=1440`) as bounds: integers for statistics counted in
 * minutes or readings, decimal numbers for the others; anything else is refused naming `parameter`.
 */
export function parseComparison(parameter: string, statistic: ExportedStatName, text: string): Comparison {
  const integer = isIntegerStat(statistic);
  // A `+` in a query string reads as a space: `> 5` is `>+5`.
  const match = (integer ? INT_FILTER : FLOAT_FILTER).exec(text.replace(/^([<>]=?) /, '$1+'));
  if (!match)
    throw invalid(
      `${parameter} must be >, >=, < or <= followed by ${integer ? 'an integer' : 'a number'}, such as ${integer ? '>=1440' : '>0.04'}`,
      parameter,
    );
  const value = Number(match[2]);
  if (!Number.isFinite(value) || (integer && Math.abs(value) > INT_MAX))
    throw invalid(`${parameter} is out of range`, parameter);
  const operator = SYMBOLS[match[1]!]!;
  return isFractionStat(statistic) ? fractionBound(statistic, operator, value) : { [operator]: value };
}

/**
 * A bound on a fraction as one inside its range that matches the same patients: Tidepool's REST
 * filters take any number (`>4` matches nobody, `<4` everybody with the statistic), while the
 * checked filter refuses bounds outside the range.
 */
function fractionBound(statistic: ExportedStatName, operator: Operator, value: number): Comparison {
  const [lowest, highest] = fractionRange(statistic);
  const above = operator === 'gt' || operator === 'gte';
  if (value > highest) return above ? { gt: highest } : { lte: highest };
  if (value < lowest) return above ? { gte: lowest } : { lt: lowest };
  return { [operator]: value };
}

/** The values a fraction statistic takes: 0 to 1, its change against the previous period -1 to 1. */
const fractionRange = (statistic: string): [number, number] => [statistic.endsWith('Delta') ? -1 : 0, 1];

/** A bound outside its fraction's range refused, saying why (and what a percentage given by mistake would be). */
function checkFraction(statistic: string, path: string, value: number): void {
  const [lowest, highest] = fractionRange(statistic);
  if (value >= lowest && value <= highest) return;
  const hint = Math.abs(value) <= 100 ? `; ${value}% is ${value / 100}` : '';
  throw invalid(`${path} is a fraction from ${lowest} to ${highest}${hint}`, path);
}

/** Tidepool's summary parameters of the patient list, parsed: the filter and where a statistic sort reads. */
export interface SummaryParameters {
  filter: SummaryFilter | null;
  /** From `sortType`, `period` and `offsetPeriods`; null without `sortType`. */
  sortSource: SummaryPeriodRef | null;
}

/**
 * Tidepool's list parameters (`cgm.<statistic>`, `bgm.<statistic>`, `cgm.lastDataFrom` (at or
 * after), `cgm.lastDataTo` (before), the same for `bgm.`, and `period`, `offsetPeriods`,
 * `sortType`), each given once, as the filter and the sort source. Anything malformed or unknown
 * is refused naming its parameter; an empty value is ignored.
 */
export function parseSummaryParameters(parameters: Readonly<Record<string, string | undefined>>): SummaryParameters {
  const { period = DEFAULT_PERIOD, offsetPeriods, sortType } = parameters;
  if (!isPeriodKey(period)) throw invalid(`period must be one of ${Object.keys(PERIODS).join(', ')}`, 'period');
  if (offsetPeriods !== undefined && offsetPeriods !== 'true' && offsetPeriods !== 'false')
    throw invalid('offsetPeriods must be true or false', 'offsetPeriods');
  if (sortType !== undefined && !(SUMMARY_KINDS as readonly string[]).includes(sortType))
    throw invalid('sortType must be cgm or bgm', 'sortType');
  const previous = offsetPeriods === 'true';
  const filter: SummaryFilter = { period: period as PeriodKey, previous };
  for (const [parameter, text] of Object.entries(parameters)) {
    const match = /^(cgm|bgm)\.(.*)$/.exec(parameter);
    // An empty value filters nothing, as in Tidepool's clinic service.
    if (!match || text === undefined || text === '') continue;
    const kind = match[1] as SummaryKind;
    const name = match[2]!;
    const given = (filter[kind] ??= { statistics: {} });
    if (name === 'lastDataFrom' || name === 'lastDataTo') {
      given[name] = parseDateTime(text, parameter);
      continue;
    }
    const statistic = summaryStatistic(kind, name);
    if (!statistic) throw invalid(`${parameter} is not a ${kind} statistic clinics filter on`, parameter);
    given.statistics![statistic] = parseComparison(parameter, statistic, text);
  }
  return {
    filter: filtersSummaries(filter) ? filter : null,
    sortSource: sortType ? { kind: sortType as SummaryKind, period: period as PeriodKey, previous } : null,
  };
}

/** A filter's name for the mean glucose in its `units`: averageGlucoseMmol's bounds converted. */
const IN_UNITS_NAMES: Readonly<Record<string, ExportedStatName>> = {
  averageGlucose: 'averageGlucoseMmol',
  averageGlucoseDelta: 'averageGlucoseMmolDelta',
};

/**
 * The summary filter checked (statistics of the kind, integers where counted, fractions from 0
 * to 1, finite bounds), `field` naming it; glucose bounds converted from its units to mmol/L.
 */
export function checkSummaryFilter(filter: SummaryFilter, field = 'filter'): SummaryFilter {
  const units = filter.units ?? 'MMOL_L';
  const period = filter.period ?? DEFAULT_PERIOD;
  if (!isPeriodKey(period)) throw invalid(`${field}.period must be one of ${Object.keys(PERIODS).join(', ')}`, field);
  const checked: SummaryFilter = { period, previous: filter.previous ?? false };
  for (const kind of SUMMARY_KINDS) {
    const given = filter[kind];
    if (!given) continue;
    const statistics: Record<string, Comparison> = {};
    for (const [name, comparison] of Object.entries(given.statistics ?? {})) {
      if (!comparison) continue;
      const path = `${field}.${kind}.${name}`;
      const statistic = summaryStatistic(kind, IN_UNITS_NAMES[name] ?? name);
      if (!statistic) throw invalid(`${path} is not a ${kind} statistic clinics filter on`, path);
      if (statistic in statistics)
        throw invalid(`${path}: give ${name} or ${statistic}, not both (the same statistic)`, path);
      // averageGlucoseMmol says its unit; the other glucose statistics are in the filter's.
      const converted = isGlucoseStat(statistic) && !name.startsWith('averageGlucoseMmol');
      const bounds: Comparison = {};
      for (const operator of Object.keys(OPERATORS) as Operator[]) {
        const value = comparison[operator];
        if (value === null || value === undefined) continue;
        if (!Number.isFinite(value) || (isIntegerStat(statistic) && !Number.isInteger(value)))
          throw invalid(`${path}.${operator} must be ${isIntegerStat(statistic) ? 'an integer' : 'a number'}`, path);
        if (isFractionStat(statistic)) checkFraction(statistic, `${path}.${operator}`, value);
        bounds[operator] = converted ? toMmol(value, units) : value;
      }
      if (Object.keys(bounds).length) statistics[statistic] = bounds;
    }
    const dates = { lastDataFrom: given.lastDataFrom ?? null, lastDataTo: given.lastDataTo ?? null };
    for (const [name, date] of Object.entries(dates))
      if (date && Number.isNaN(date.getTime())) throw invalid(`${field}.${kind}.${name} is not a date-time`, field);
    if (Object.keys(statistics).length || dates.lastDataFrom || dates.lastDataTo)
      checked[kind] = { statistics, ...dates };
  }
  return checked;
}

/** Whether the filter holds any summary condition (else the list needs no summary at all). */
export const filtersSummaries = (filter: SummaryFilter | null | undefined): boolean =>
  Boolean(filter && (filter.cgm || filter.bgm));

/**
 * The sort source checked: a statistic sort needs a kind (Tidepool's sortType) that has it;
 * `name` and `kindParameter` name the sort and the kind as the caller's transport does.
 */
export function checkSummarySort(
  field: string,
  source: SummarySortSource | null | undefined,
  name = 'orderBy',
  kindParameter = 'orderBy.summary (CGM or BGM)',
): SummaryPeriodRef {
  if (!source?.kind) throw invalid(`${name}: sorting by ${field} needs ${kindParameter}, the summary to sort by`, name);
  if (!isDateSort(field) && !summaryStatistic(source.kind, field))
    throw invalid(`${name}: ${field} is not a ${source.kind} statistic clinics sort on`, name);
  const period = source.period ?? DEFAULT_PERIOD;
  if (!isPeriodKey(period)) throw invalid(`${name}.period must be one of ${Object.keys(PERIODS).join(', ')}`, name);
  return { kind: source.kind, period, previous: source.previous ?? false };
}

/** SQL joining a clinic's patients (`p`) to their period statistics, with the conditions on them. */
export interface SummarySql {
  joins: string[];
  conditions: string[];
  /** Parameters of `conditions`, in order (joins have none). */
  params: unknown[];
  /** The sort expression, NULL-free (missing values lowest) and its SQL type, when sorting by a summary. */
  sort: { expression: string; type: 'float8' | 'timestamptz' } | null;
  /** The period reads `joins` make, in order: inner for a filtered period, left for a sort's own. */
  reads: PeriodRead[];
}

/** One period of one kind read from the clinic copy under `alias`. */
export interface PeriodRead extends SummaryPeriodRef {
  alias: string;
  inner: boolean;
}

/** The rows of `alias` that are its read's kind and period. */
const readsPeriod = ({ alias, kind, period, previous }: PeriodRead) =>
  `${alias}.kind = '${kind}' and ${alias}.period = '${period}' and ${previous ? '' : 'not '}${alias}.previous`;

/**
 * The joins, conditions and sort expression of a checked summary filter and sort. Kinds, periods
 * and column names come from fixed lists (never from the request), so they are written inline;
 * bounds are parameters.
 *
 * Each period read is a join to the clinic's own copy of the statistics (clinic_patient_period_stats,
 * on the clinic and the patient): one index range of one partition, in the order of the
 * patients' primary key, so a list costs in proportion to the clinic, never to every user's
 * statistics. A filtered kind is an inner join; a sort on a period no filter reads is a left
 * join, so patients without it sort lowest.
 */
export function summarySql(
  filter: SummaryFilter | null | undefined,
  sort: { field: SummarySortField; source: SummaryPeriodRef } | null,
): SummarySql {
  const result: SummarySql = { joins: [], conditions: [], params: [], sort: null, reads: [] };
  const joined = new Map<string, PeriodRead>();
  const join = (kind: SummaryKind, period: PeriodKey, previous: boolean, inner: boolean, column: string) => {
    const key = `${kind}:${period}:${previous}`;
    let read = joined.get(key);
    if (!read) joined.set(key, (read = { alias: `s${joined.size}`, kind, period, previous, inner }));
    return `${read.alias}.${column}`;
  };
  const period = filter?.period ?? DEFAULT_PERIOD;
  const previous = filter?.previous ?? false;
  const condition = (kind: SummaryKind, column: string, operator: string, value: unknown) => {
    result.conditions.push(`${join(kind, period, previous, true, column)} ${operator} ?`);
    result.params.push(value);
  };
  for (const kind of SUMMARY_KINDS) {
    const given = filter?.[kind];
    if (!given) continue;
    for (const [name, comparison] of Object.entries(given.statistics ?? {}))
      for (const [operator, value] of Object.entries(comparison ?? {}))
        if (value !== null && value !== undefined)
          condition(kind, STAT_COLUMNS[name as ExportedStatName], OPERATORS[operator as Operator], value);
    if (given.lastDataFrom) condition(kind, 'last_data', '>=', given.lastDataFrom);
    if (given.lastDataTo) condition(kind, 'last_data', '<', given.lastDataTo);
  }
  if (sort) {
    const { kind, period: sortPeriod, previous: sortPrevious } = sort.source;
    const dated = isDateSort(sort.field);
    let value: string;
    if (sort.field in SUMMARY_DATES) {
      // Dates of the summary as a whole (not of a period): its own row, one primary-key probe.
      value = `d.${SUMMARY_DATES[sort.field as keyof typeof SUMMARY_DATES]}`;
      result.joins.push(summaryJoins.summaryDates('d', 'p.user_id', kind));
    } else {
      const column =
        sort.field in PERIOD_DATES
          ? PERIOD_DATES[sort.field as keyof typeof PERIOD_DATES]
          : STAT_COLUMNS[sort.field as ExportedStatName];
      value = join(kind, sortPeriod, sortPrevious, false, column);
    }
    result.sort = dated
      ? { expression: `coalesce(${value}, '-infinity'::timestamptz)`, type: 'timestamptz' }
      : { expression: `coalesce(${value}, '-Infinity'::float8)`, type: 'float8' };
  }
  result.reads = [...joined.values()];
  for (const read of result.reads)
    result.joins.push(
      `${read.inner ? 'join' : 'left join'} ${CLINIC_PERIOD_STATS_TABLE} ${read.alias} on ${read.alias}.clinic_id = p.clinic_id` +
        ` and ${read.alias}.user_id = p.user_id and ${readsPeriod(read)}`,
    );
  return result;
}

/** A summary filter and sort over the clinic copy alone: its FROM, conditions and their parameters, the sort. */
export interface CopySql {
  from: string;
  conditions: string[];
  params: unknown[];
  sort: SummarySql['sort'];
  /** The alias whose `clinic_id` and `user_id` are the patient's. */
  alias: string;
}

/**
 * The same filter and sort (summarySql) read from the clinic copy alone, for a clinic `clinicId`
 * (an SQL expression), without the patients' records: the copy holds rows only of the clinic's
 * patients (its triggers keep it so), so when nothing else filters the list, the copy rows
 * meeting every condition are the list's patients, one each. A list then finds and counts its
 * patients in the copy's indexes (patient-list-indexes.ts) and reads the records of one page.
 * Null when some patient of the list may have no copy row: nothing filters the summaries, the
 * sort reads a period no filter reads (patients without it sort lowest), or the summary's own
 * dates.
 */
export function copySql(
  filter: SummaryFilter | null | undefined,
  sort: { field: SummarySortField; source: SummaryPeriodRef } | null,
  clinicId: string,
): CopySql | null {
  if (!filtersSummaries(filter) || (sort && sort.field in SUMMARY_DATES)) return null;
  const summary = summarySql(filter, sort);
  const [first, ...others] = summary.reads;
  if (!first || summary.reads.some((read) => !read.inner)) return null;
  const joins = others.map(
    (read) =>
      `join ${CLINIC_PERIOD_STATS_TABLE} ${read.alias} on ${read.alias}.clinic_id = ${first.alias}.clinic_id` +
      ` and ${read.alias}.user_id = ${first.alias}.user_id and ${readsPeriod(read)}`,
  );
  return {
    from: [`${CLINIC_PERIOD_STATS_TABLE} ${first.alias}`, ...joins].join(' '),
    conditions: [`${first.alias}.clinic_id = ${clinicId}`, readsPeriod(first), ...summary.conditions],
    params: summary.params,
    sort: summary.sort,
    alias: first.alias,
  };
}

/** A cursor's sort value for a summary sort: a number (or -Infinity) or a date-time as PostgreSQL prints them. */
export function isSummarySortValue(type: 'float8' | 'timestamptz', value: string): boolean {
  if (type === 'float8') return /^-?Infinity$|^-?\d+(\.\d+)?(e[+-]?\d+)?$/.test(value);
  return value === '-infinity' || /^\d{4}-\d\d-\d\d[ T][\d:.]+([+-]\d\d(:?\d\d)?|Z)?$/.test(value);
}
