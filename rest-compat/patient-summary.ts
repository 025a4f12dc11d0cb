import { BGM_FIELDS, CGM_FIELDS } from '../src/domains/glucose/glucose-summary.types';
import { SUMMARY_SCHEMA_VERSION } from '../src/domains/glucose/glucose-summary.entity';
import { THRESHOLDS_MMOL } from '../src/domains/glucose/summary/ranges';
import { PERIODS } from '../src/domains/glucose/summary/periods';
import { FLAGGED_STAT_NAMES } from '../src/domains/glucose/summary/statistics';
import { SUMMARY_PERIOD } from './enums';

/** Tidepool's period keys, each asked as its GraphQL period under an alias of its own. */
const PERIOD_KEYS = Object.keys(PERIODS);
const alias = (key: string) => `summary${key}`;
const DATES = 'dates { lastData firstData lastUploadDate lastUpdatedDate outdatedSince }';

/**
 * The GraphQL selection of a clinic patient's summaries for every period, for the legacy shape.
 * With `offsetVariable`, the previous periods are asked too (as `offsetPeriod`), and the
 * variable chooses which of the two the answer carries (Tidepool's `offsetPeriods`).
 */
export function summaryFields(offsetVariable?: string): string {
  const periods = (fields: string[]) =>
    offsetVariable
      ? `period @skip(if: $${offsetVariable}) { ${fields.join(' ')} }
         offsetPeriod: previousPeriod @include(if: $${offsetVariable}) { ${fields.join(' ')} }`
      : `period { ${fields.join(' ')} }`;
  // Every period of a kind comes from one stored summary with one set of dates: asked once, of the first.
  return PERIOD_KEYS.map((key, index) => {
    const dates = index === 0 ? DATES : '';
    return `${alias(key)}: glucoseSummary(period: ${SUMMARY_PERIOD.value(key, 'period')}, units: MMOL_L) {
         cgm { ${dates} ${periods(CGM_FIELDS)} } bgm { ${dates} ${periods(BGM_FIELDS)} } }`;
  }).join(' ');
}

export const SUMMARY_FIELDS = summaryFields();

const CONFIG = {
  schemaVersion: SUMMARY_SCHEMA_VERSION,
  highGlucoseThreshold: THRESHOLDS_MMOL.high,
  veryHighGlucoseThreshold: THRESHOLDS_MMOL.veryHigh,
  lowGlucoseThreshold: THRESHOLDS_MMOL.low,
  veryLowGlucoseThreshold: THRESHOLDS_MMOL.veryLow,
};

/** A kind's summary for one period; `dates` only in the first period's (summaryFields asks them once). */
type Side = { dates?: Record<string, unknown> } & Record<'period' | 'offsetPeriod', Record<string, unknown>>;
type Summary = { cgm: Side | null; bgm: Side | null } | null;

/** The entries of `values` that are not null (the statistics the clinic copy keeps). */
function present(values: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const name in values) if (values[name] !== null) kept[name] = values[name];
  return kept;
}

const flagName = (name: string) => `has${name[0]!.toUpperCase()}${name.slice(1)}`;
/**
 * Each statistic Tidepool flags with `has<Name>` (true when the clinic copy holds a value other
 * than 0) and its flag, computed once: a page of 50 patients has 2,000 periods to flag.
 */
const FLAGS = new Map<string, string>(FLAGGED_STAT_NAMES.map((name) => [name, flagName(name)]));
/** Tidepool's clinic copy keeps CGM deviation and variation as plain numbers, 0 when unset. */
const PLAIN_CGM = ['standardDeviation', 'coefficientOfVariation'].flatMap((name) => [name, `${name}Delta`]);

/** One pass over a period: the values it has, and each flag beside its statistic. */
function legacyPeriod(period: Record<string, unknown>, kind: 'cgm' | 'bgm'): Record<string, unknown> {
  const legacy: Record<string, unknown> = {};
  for (const name in period) {
    const value = period[name];
    if (value !== null) legacy[name] = value;
    const flag = FLAGS.get(name);
    if (flag) legacy[flag] = value !== null && value !== 0;
  }
  if (kind === 'cgm') for (const name of PLAIN_CGM) legacy[name] = period[name] ?? 0;
  return legacy;
}

function legacyDates(dates: Record<string, unknown>): Record<string, unknown> {
  const flags = Object.fromEntries(
    ['firstData', 'lastData', 'lastUploadDate', 'outdatedSince'].map((name) => [flagName(name), dates[name] != null]),
  );
  return { ...present(dates), ...flags };
}

/**
 * Tidepool's `summary` of a clinic patient (`{cgmStats, bgmStats}`, each `{config, dates,
 * periods}` with periods keyed `1d` … `30d`) from the aliased GraphQL summaries; statistics the
 * clinic copy withholds are left out, as Tidepool leaves them out. Undefined without readings.
 * `offset`: the previous periods shown in their place (asked with `summaryFields`' variable).
 */
export function legacySummary(
  patient: Record<string, unknown>,
  { offset = false }: { offset?: boolean } = {},
): Record<string, unknown> | undefined {
  const stats = (kind: 'cgm' | 'bgm') => {
    const sides = PERIOD_KEYS.map((key) => [key, (patient[alias(key)] as Summary)?.[kind] ?? null] as const);
    const first = sides[0]![1];
    if (!first?.dates) return undefined;
    const periods = Object.fromEntries(
      sides
        .filter(([, side]) => side)
        .map(([key, side]) => [key, legacyPeriod(side![offset ? 'offsetPeriod' : 'period'], kind)]),
    );
    return { config: CONFIG, dates: legacyDates(first.dates), periods };
  };
  const [cgmStats, bgmStats] = [stats('cgm'), stats('bgm')];
  if (!cgmStats && !bgmStats) return undefined;
  return { ...(cgmStats ? { cgmStats } : {}), ...(bgmStats ? { bgmStats } : {}) };
}

/** The aliases a patient's data carries, to keep them out of the rest of its legacy shape. */
export const SUMMARY_ALIASES = PERIOD_KEYS.map(alias);
