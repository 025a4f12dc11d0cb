import type { SummaryKind } from './buckets';

/**
 * The catalogue of summary statistics: the one place a statistic is named, with what it
 * measures and which summaries have it. Every list of statistics derives from it, in its order:
 * the period computation and its deltas (periods.ts), what the clinic copy keeps (export.ts), the
 * table's columns (period-stats.ts), the GraphQL period fields, filters and sort keys, the CSV
 * columns, the REST filters and flags and the OpenAPI document. Adding a statistic is a line
 * here, its computation in periods.ts, and a migration for its columns.
 *
 * Every statistic is computed for every period (PERIODS) and has a delta (`<name>Delta`).
 * Clinics filter and sort on every statistic of a kind and on its delta; sort keys are the CGM
 * statistics, the BGM ones being a subset.
 */

/** What a statistic measures, which decides how it is typed, converted and bounded. */
export type StatUnit =
  /** A share of the whole, 0 to 1 (its delta -1 to 1), Tidepool's "Percent". */
  | 'fraction'
  /** Whole minutes. */
  | 'minutes'
  /** Whole readings. */
  | 'records'
  /** Whole hours or days with readings. */
  | 'hours'
  | 'days'
  /** Readings per day, a real number. */
  | 'recordsPerDay'
  /** Glucose in mmol/L, shown in the units asked for. */
  | 'glucose'
  /** A percentage as a number (GMI: 7.1 = 7.1%). */
  | 'percent'
  /** A ratio that may exceed 1 (the coefficient of variation). */
  | 'ratio';

export interface Statistic<Name extends string = string> {
  name: Name;
  unit: StatUnit;
  /** The summaries that have it: their GraphQL period fields, filters, sort keys and CSV columns. */
  kinds: readonly SummaryKind[];
  /** The kinds whose clinic copy keeps it however little data there is (exportPeriod); others it may withhold. */
  alwaysKept: readonly SummaryKind[];
  /** Whether Tidepool's REST patient summary flags it with `has<Name>` (true when kept and not 0). */
  flagged: boolean;
}

const BOTH = ['cgm', 'bgm'] as const;
const CGM = ['cgm'] as const;
const NONE = [] as const;
const FLAG = true;

const stat = <Name extends string>(
  name: Name,
  unit: StatUnit,
  kinds: readonly SummaryKind[],
  alwaysKept: readonly SummaryKind[],
  flagged = false,
): Statistic<Name> => ({ name, unit, kinds, alwaysKept, flagged });

/*
 * Tidepool's order (the table's columns, GraphQL's fields, the CSV's columns follow it). BGM
 * summaries keep no count of extreme-high readings, yet their clinic copy stores it, as
 * Tidepool's does; Tidepool's clinic API requires daysWithData on BGM periods too.
 */
// prettier-ignore
export const STATISTICS = [
  //   name                            unit             kinds  kept always  has-flag
  stat('timeInVeryLowPercent',         'fraction',      BOTH,  NONE,        FLAG),
  stat('timeInVeryLowMinutes',         'minutes',       CGM,   CGM,         FLAG),
  stat('timeInVeryLowRecords',         'records',       BOTH,  BOTH,        FLAG),
  stat('timeInLowPercent',             'fraction',      BOTH,  NONE,        FLAG),
  stat('timeInLowMinutes',             'minutes',       CGM,   CGM,         FLAG),
  stat('timeInLowRecords',             'records',       BOTH,  BOTH,        FLAG),
  stat('timeInTargetPercent',          'fraction',      BOTH,  NONE,        FLAG),
  stat('timeInTargetMinutes',          'minutes',       CGM,   CGM,         FLAG),
  stat('timeInTargetRecords',          'records',       BOTH,  BOTH,        FLAG),
  stat('timeInHighPercent',            'fraction',      BOTH,  NONE,        FLAG),
  stat('timeInHighMinutes',            'minutes',       CGM,   CGM,         FLAG),
  stat('timeInHighRecords',            'records',       BOTH,  BOTH,        FLAG),
  stat('timeInVeryHighPercent',        'fraction',      BOTH,  NONE,        FLAG),
  stat('timeInVeryHighMinutes',        'minutes',       CGM,   CGM,         FLAG),
  stat('timeInVeryHighRecords',        'records',       BOTH,  BOTH,        FLAG),
  stat('timeInExtremeHighPercent',     'fraction',      BOTH,  NONE,        FLAG),
  stat('timeInExtremeHighMinutes',     'minutes',       CGM,   CGM,         FLAG),
  stat('timeInExtremeHighRecords',     'records',       CGM,   BOTH,        FLAG),
  stat('timeInAnyLowPercent',          'fraction',      BOTH,  NONE,        FLAG),
  stat('timeInAnyLowMinutes',          'minutes',       CGM,   CGM,         FLAG),
  stat('timeInAnyLowRecords',          'records',       BOTH,  BOTH,        FLAG),
  stat('timeInAnyHighPercent',         'fraction',      BOTH,  NONE,        FLAG),
  stat('timeInAnyHighMinutes',         'minutes',       CGM,   CGM,         FLAG),
  stat('timeInAnyHighRecords',         'records',       BOTH,  BOTH,        FLAG),
  stat('timeCGMUsePercent',            'fraction',      CGM,   NONE,        FLAG),
  stat('timeCGMUseMinutes',            'minutes',       CGM,   CGM,         FLAG),
  stat('timeCGMUseRecords',            'records',       CGM,   CGM,         FLAG),
  stat('averageGlucoseMmol',           'glucose',       BOTH,  NONE,        FLAG),
  stat('glucoseManagementIndicator',   'percent',       CGM,   NONE,        FLAG),
  stat('standardDeviation',            'glucose',       BOTH,  NONE),
  stat('coefficientOfVariation',       'ratio',         BOTH,  NONE),
  stat('averageDailyRecords',          'recordsPerDay', BOTH,  BOTH,        FLAG),
  stat('totalRecords',                 'records',       BOTH,  BOTH,        FLAG),
  stat('hoursWithData',                'hours',         CGM,   CGM),
  stat('daysWithData',                 'days',          BOTH,  BOTH),
  stat('min',                          'glucose',       BOTH,  BOTH),
  stat('max',                          'glucose',       BOTH,  BOTH),
] as const;

export type StatName = (typeof STATISTICS)[number]['name'];

/** Every statistic's name, in the catalogue's order. */
export const STAT_NAMES: readonly StatName[] = STATISTICS.map((statistic) => statistic.name);

const namesWhere = (test: (statistic: Statistic) => boolean): StatName[] =>
  STATISTICS.filter(test).map((statistic) => statistic.name);

/** The statistics a kind of summary has. */
export const statNamesOf = (kind: SummaryKind): StatName[] => namesWhere(({ kinds }) => kinds.includes(kind));

/** The statistics a kind's clinic copy keeps however little data there is. */
export const alwaysKeptOf = (kind: SummaryKind): StatName[] =>
  namesWhere(({ alwaysKept }) => alwaysKept.includes(kind));

/** The statistics Tidepool's REST summary flags with `has<Name>`. */
export const FLAGGED_STAT_NAMES: readonly StatName[] = namesWhere(({ flagged }) => flagged);

const UNITS: ReadonlyMap<string, StatUnit> = new Map(STATISTICS.map(({ name, unit }) => [name, unit]));
const INTEGER_UNITS: ReadonlySet<StatUnit> = new Set(['minutes', 'records', 'hours', 'days']);

/** The unit of a statistic or of its delta; undefined for a name outside the catalogue. */
export const unitOf = (name: string): StatUnit | undefined => UNITS.get(name.replace(/Delta$/, ''));

/** Statistics counted in whole minutes, readings, hours or days (and their deltas); the others are real numbers. */
export const isIntegerStat = (name: string): boolean => {
  const unit = unitOf(name);
  return unit !== undefined && INTEGER_UNITS.has(unit);
};

/** Statistics holding glucose (a mean, a spread, a reading, or the change of one), stored in mmol/L. */
export const isGlucoseStat = (name: string): boolean => unitOf(name) === 'glucose';

/** Statistics that are shares of a whole: fractions from 0 to 1, their deltas from -1 to 1. */
export const isFractionStat = (name: string): boolean => unitOf(name) === 'fraction';
