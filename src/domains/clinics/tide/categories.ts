import type { ExportedStatName } from '../../glucose/period-stats';

/**
 * The TIDE report's categories as data (Tidepool's clinic service, patients/repository
 * availableCategories): which CGM statistic each filters on and sorts by, and in what order the
 * default report asks them. Values are fractions from 0 to 1.
 */

/**
 * The CGM statistics of a period the report reads and answers with, in the order Tidepool's
 * TideResultPatient lists them (REST answers keep it). The statistics are the catalogue's
 * (glucose/summary/statistics.ts); choosing these is the report's.
 */
export const TIDE_STATS = [
  'averageGlucoseMmol',
  'glucoseManagementIndicator',
  'timeCGMUseMinutes',
  'timeCGMUsePercent',
  'timeInVeryLowPercent',
  'timeInLowPercent',
  'timeInAnyLowPercent',
  'timeInTargetPercent',
  'timeInTargetPercentDelta',
  'timeInHighPercent',
  'timeInVeryHighPercent',
  'timeInExtremeHighPercent',
  'timeInAnyHighPercent',
] as const satisfies readonly ExportedStatName[];

export type TideStat = (typeof TIDE_STATS)[number];

export type Operator = '>' | '>=' | '<' | '<=';

/** `stat operator value`; `negated` passes when the test fails or the statistic is missing (Mongo `$not`). */
export interface Condition {
  stat: TideStat;
  operator: Operator;
  value: number;
  negated?: boolean;
}

export interface TideCategoryRule {
  key: TideCategoryKey;
  /** Every condition must hold. A missing statistic never passes a plain test. */
  conditions: readonly Condition[];
  sortBy: TideStat;
  descending: boolean;
}

/** The categories Tidepool reports when the request names none, highest priority first. */
const DEFAULT_CATEGORY_KEYS = [
  'timeInVeryLowPercent',
  'timeInAnyLowPercent',
  'timeInVeryHighPercent',
  'timeInAnyHighPercent',
  'dropInTimeInTargetPercent',
  'timeCGMUsePercent',
  'meetingTargets',
] as const;

/** Every category: the defaults, then those reported only when asked for. */
export const TIDE_CATEGORY_KEYS = [
  ...DEFAULT_CATEGORY_KEYS,
  'timeInTargetPercent',
  'timeInExtremeHighPercent',
] as const;

export type TideCategoryKey = (typeof TIDE_CATEGORY_KEYS)[number];

const above = (stat: TideStat, value: number): Condition => ({ stat, operator: '>', value });
const below = (stat: TideStat, value: number): Condition => ({ stat, operator: '<', value });
const not = (condition: Condition): Condition => ({ ...condition, negated: true });

const VERY_LOW = above('timeInVeryLowPercent', 0.01);
const ANY_LOW = above('timeInAnyLowPercent', 0.04);
const VERY_HIGH = above('timeInVeryHighPercent', 0.05);
const ANY_HIGH = above('timeInAnyHighPercent', 0.25);
const EXTREME_HIGH: Condition = { stat: 'timeInExtremeHighPercent', operator: '>=', value: 0.01 };

export const TIDE_CATEGORIES: Readonly<Record<TideCategoryKey, TideCategoryRule>> = {
  timeInVeryLowPercent: {
    key: 'timeInVeryLowPercent',
    conditions: [VERY_LOW],
    sortBy: 'timeInVeryLowPercent',
    descending: true,
  },
  timeInAnyLowPercent: {
    key: 'timeInAnyLowPercent',
    conditions: [ANY_LOW],
    sortBy: 'timeInAnyLowPercent',
    descending: true,
  },
  timeInVeryHighPercent: {
    key: 'timeInVeryHighPercent',
    conditions: [VERY_HIGH],
    sortBy: 'timeInVeryHighPercent',
    descending: true,
  },
  timeInAnyHighPercent: {
    key: 'timeInAnyHighPercent',
    conditions: [ANY_HIGH],
    sortBy: 'timeInAnyHighPercent',
    descending: true,
  },
  dropInTimeInTargetPercent: {
    key: 'dropInTimeInTargetPercent',
    conditions: [below('timeInTargetPercentDelta', -0.15)],
    sortBy: 'timeInTargetPercentDelta',
    descending: false,
  },
  timeCGMUsePercent: {
    key: 'timeCGMUsePercent',
    conditions: [below('timeCGMUsePercent', 0.7)],
    sortBy: 'timeCGMUsePercent',
    descending: false,
  },
  meetingTargets: {
    key: 'meetingTargets',
    conditions: [
      { stat: 'timeInTargetPercent', operator: '>=', value: 0.7 },
      { stat: 'timeCGMUsePercent', operator: '>=', value: 0.7 },
      not(ANY_LOW),
      not(VERY_LOW),
      not(ANY_HIGH),
      not(VERY_HIGH),
      not(EXTREME_HIGH),
    ],
    sortBy: 'timeInTargetPercent',
    descending: true,
  },
  timeInTargetPercent: {
    key: 'timeInTargetPercent',
    conditions: [below('timeInTargetPercent', 0.7)],
    sortBy: 'timeInTargetPercent',
    descending: false,
  },
  timeInExtremeHighPercent: {
    key: 'timeInExtremeHighPercent',
    conditions: [EXTREME_HIGH],
    sortBy: 'timeInExtremeHighPercent',
    descending: true,
  },
};

/** The report's categories when the request names none, highest priority first. */
export const DEFAULT_CATEGORIES: readonly TideCategoryKey[] = DEFAULT_CATEGORY_KEYS;

export const isTideCategory = (name: string): name is TideCategoryKey =>
  (TIDE_CATEGORY_KEYS as readonly string[]).includes(name);

/** Whether a patient's statistics pass a condition, as the SQL of tide.repository.ts decides it. */
export function passes(condition: Condition, stats: Partial<Record<TideStat, number | null>>): boolean {
  const value = stats[condition.stat];
  const holds =
    value === null || value === undefined
      ? false
      : condition.operator === '>'
        ? value > condition.value
        : condition.operator === '>='
          ? value >= condition.value
          : condition.operator === '<'
            ? value < condition.value
            : value <= condition.value;
  return condition.negated ? !holds : holds;
}

/** The first category of `order` whose conditions a patient meets, or null. */
export function categoryOf(
  order: readonly TideCategoryKey[],
  stats: Partial<Record<TideStat, number | null>>,
): TideCategoryKey | null {
  return order.find((key) => TIDE_CATEGORIES[key].conditions.every((condition) => passes(condition, stats))) ?? null;
}

/** Glucose thresholds in mmol/L the categories stand on (Tidepool's ADA ranges). */
export const TIDE_THRESHOLDS = {
  veryLowGlucoseThreshold: 3.0,
  lowGlucoseThreshold: 3.9,
  highGlucoseThreshold: 10.0,
  veryHighGlucoseThreshold: 13.9,
  extremeHighGlucoseThreshold: 19.4,
} as const;

/** The filters the report's config shows: always these five, whatever was asked (as Tidepool). */
export const TIDE_CONFIG_FILTERS = {
  timeInVeryLowPercent: '>0.01',
  timeInAnyLowPercent: '>0.04',
  dropInTimeInTargetPercent: '<-0.15',
  timeInTargetPercent: '<0.7',
  timeCGMUsePercent: '<0.7',
} as const;

/** The TIDE report's schema version, as Tidepool's config reports it. */
export const TIDE_SCHEMA_VERSION = 2;

/** At most this many patients over all clinical categories together. */
export const TIDE_PATIENT_LIMIT = 100;
/** At most this many patients without recent data, apart from the 100. */
export const TIDE_NO_DATA_LIMIT = 50;
/** Data older than this counts as missing for the noData category. */
export const TIDE_NO_DATA_AGE_MS = 8 * 60 * 60 * 1000;
