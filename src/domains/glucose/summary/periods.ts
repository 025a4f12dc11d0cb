import type { HourBucket, Moments, SummaryKind } from './buckets';
import { RANGES, type RangeName } from './ranges';
import { STAT_NAMES, type StatName } from './statistics';

export { STAT_NAMES, type StatName };

export const PERIODS = { '1d': 1, '7d': 7, '14d': 14, '30d': 30 } as const;
export type PeriodKey = keyof typeof PERIODS;

/** Whether a caller's string names a period: own keys only (`"toString" in PERIODS` is true). */
export const isPeriodKey = (value: string): value is PeriodKey => Object.hasOwn(PERIODS, value);

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Every statistic of one period, as Tidepool names them; 0 where it does not apply. */
export type PeriodStats = Record<StatName, number>;

/** A period with its deltas against the previous period of the same length (`<stat>Delta`). */
export type PeriodWithDeltas = PeriodStats & Record<`${StatName}Delta`, number>;

export const capitalised = (name: string) => name[0]!.toUpperCase() + name.slice(1);

interface Aggregate {
  ranges: Record<RangeName | 'total', { records: number; minutes: number }>;
  moments: Moments;
  min: number;
  max: number;
  hours: number[];
}

/**
 * Merges buckets newest first, as Tidepool does. Its variance merge returns the empty side's
 * zero, so the within-hour variance of the newest bucket is left out of every period (B.6);
 * kept here for exact parity with Tidepool's numbers.
 */
function aggregate(buckets: readonly HourBucket[]): Aggregate {
  const ranges = Object.fromEntries([...RANGES, 'total'].map((name) => [name, { records: 0, minutes: 0 }]));
  const total: Aggregate = {
    ranges: ranges as Aggregate['ranges'],
    moments: { weight: 0, glucose: 0, squares: 0 },
    min: 0,
    max: 0,
    hours: [],
  };
  for (const bucket of [...buckets].sort((a, b) => b.hour - a.hour)) {
    for (const name of [...RANGES, 'total'] as const) {
      total.ranges[name].records += bucket.ranges[name].records;
      total.ranges[name].minutes += bucket.ranges[name].minutes;
    }
    mergeMoments(total.moments, bucket.moments);
    if (bucket.min !== 0 && (total.min === 0 || bucket.min < total.min)) total.min = bucket.min;
    if (bucket.max > total.max) total.max = bucket.max;
    if (bucket.ranges.total.records > 0) total.hours.push(bucket.hour);
  }
  return total;
}

function mergeMoments(into: Moments, from: Moments): void {
  if (into.weight > 0 && from.weight > 0) {
    const difference = from.glucose / from.weight - into.glucose / into.weight;
    into.squares += from.squares + (difference * difference * into.weight * from.weight) / (into.weight + from.weight);
  }
  into.weight += from.weight;
  into.glucose += from.glucose;
}

/** Greedy 24-hour windows from the newest hour with data back (not calendar days). */
function daysWithData(hoursNewestFirst: readonly number[]): number {
  let days = 0;
  let anchor = Number.POSITIVE_INFINITY;
  for (const hour of hoursNewestFirst) {
    if (days === 0 || anchor - hour >= DAY_MS) {
      days += 1;
      anchor = hour;
    }
  }
  return days;
}

/** Glucose management indicator (%), rounded to one decimal, from the mean in mmol/L. */
export function gmi(averageMmol: number): number {
  return Math.round((0.09148 * (12.71 + 4.70587 * averageMmol) + 2.152) * 10) / 10;
}

function finalise(total: Aggregate, days: number, kind: SummaryKind): PeriodStats {
  const stats = Object.fromEntries(STAT_NAMES.map((name) => [name, 0])) as PeriodStats;
  const { minutes, records } = total.ranges.total;
  const { weight, glucose, squares } = total.moments;
  const byMinutes = kind === 'cgm' && minutes > 0;
  if (byMinutes || records > 0) {
    for (const name of RANGES) {
      const range = total.ranges[name];
      const key = capitalised(name);
      stats[`timeIn${key}Records` as StatName] = range.records;
      if (byMinutes) stats[`timeIn${key}Minutes` as StatName] = range.minutes;
      stats[`timeIn${key}Percent` as StatName] = byMinutes ? range.minutes / minutes : range.records / records;
    }
    if (weight > 0) {
      stats.averageGlucoseMmol = glucose / weight;
      stats.standardDeviation = Math.sqrt(squares / weight);
      stats.coefficientOfVariation = stats.standardDeviation / stats.averageGlucoseMmol;
    }
  }
  if (byMinutes) {
    stats.timeCGMUseMinutes = minutes;
    stats.timeCGMUseRecords = records;
    stats.timeCGMUsePercent = minutes / (days * 1440);
    stats.glucoseManagementIndicator = gmi(stats.averageGlucoseMmol);
  }
  stats.averageDailyRecords = records / days;
  stats.totalRecords = records;
  stats.hoursWithData = total.hours.length;
  stats.daysWithData = daysWithData(total.hours);
  stats.min = total.min;
  stats.max = total.max;
  return stats;
}

export interface SummaryPeriods {
  periods: Record<PeriodKey, PeriodWithDeltas>;
  offsetPeriods: Record<PeriodKey, PeriodWithDeltas>;
}

/**
 * Every period and its previous ("offset") period from the hourly buckets (docs/summaries.md,
 * Periods, Formulas, Deltas). The anchor is the newest bucket's hour: period `Nd` covers the hours in
 * (T − N days, T], its offset (T − 2N days, T − N days]. Deltas are current − previous; the
 * offset periods carry deltas against the period before them, as Tidepool's do.
 */
export function summarise(buckets: readonly HourBucket[], kind: SummaryKind): SummaryPeriods {
  const anchor = Math.max(...buckets.map((bucket) => bucket.hour));
  const window = (from: number, to: number) => buckets.filter((bucket) => bucket.hour > from && bucket.hour <= to);
  const periods = {} as SummaryPeriods['periods'];
  const offsetPeriods = {} as SummaryPeriods['offsetPeriods'];
  for (const [key, days] of Object.entries(PERIODS) as [PeriodKey, number][]) {
    const span = days * DAY_MS;
    const stats = (index: number) =>
      buckets.length
        ? finalise(aggregate(window(anchor - (index + 1) * span, anchor - index * span)), days, kind)
        : finalise(aggregate([]), days, kind);
    const [current, previous, beforeThat] = [stats(0), stats(1), stats(2)];
    periods[key] = withDeltas(current, previous);
    offsetPeriods[key] = withDeltas(previous, beforeThat);
  }
  return { periods, offsetPeriods };
}

function withDeltas(current: PeriodStats, previous: PeriodStats): PeriodWithDeltas {
  const result = { ...current } as PeriodWithDeltas;
  for (const name of STAT_NAMES) result[`${name}Delta`] = current[name] - previous[name];
  return result;
}
