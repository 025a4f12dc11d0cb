import { BGM_FIELDS, CGM_FIELDS } from '../src/domains/glucose/glucose-summary.types';
import { SUMMARY_SCHEMA_VERSION } from '../src/domains/glucose/glucose-summary.entity';
import type { GlucoseService, PeriodSummary } from '../src/domains/glucose/glucose.service';
import type { Scope } from '../src/kernel/scope';
import type { ExportedPeriod } from '../src/domains/glucose/summary/export';
import { THRESHOLDS_MMOL } from '../src/domains/glucose/summary/ranges';
import { PERIODS, type PeriodKey } from '../src/domains/glucose/summary/periods';
import { FLAGGED_STAT_NAMES } from '../src/domains/glucose/summary/statistics';
import type { SummaryKind } from '../src/domains/glucose/summary/buckets';

/** Tidepool's period keys, in the order its summary lists them. */
export const PERIOD_KEYS = Object.keys(PERIODS) as PeriodKey[];

/** A patient's summaries by period key, as the glucose service reads them for the clinic; null where it reads none. */
export type SummariesByPeriod = ReadonlyMap<PeriodKey, readonly PeriodSummary[] | null>;

const CONFIG = {
  schemaVersion: SUMMARY_SCHEMA_VERSION,
  highGlucoseThreshold: THRESHOLDS_MMOL.high,
  veryHighGlucoseThreshold: THRESHOLDS_MMOL.veryHigh,
  lowGlucoseThreshold: THRESHOLDS_MMOL.low,
  veryLowGlucoseThreshold: THRESHOLDS_MMOL.veryLow,
};

/** Each kind's statistics with their deltas, in the order Tidepool's period lists them. */
const FIELDS: Record<SummaryKind, readonly string[]> = { cgm: CGM_FIELDS, bgm: BGM_FIELDS };

const flagName = (name: string) => `has${name[0]!.toUpperCase()}${name.slice(1)}`;
/**
 * Each statistic Tidepool flags with `has<Name>` (true when the clinic copy holds a value other
 * than 0) and its flag, computed once: a page of 50 patients has 2,000 periods to flag.
 */
const FLAGS = new Map<string, string>(FLAGGED_STAT_NAMES.map((name) => [name, flagName(name)]));
/** Tidepool's clinic copy keeps CGM deviation and variation as plain numbers, 0 when unset. */
const PLAIN_CGM = ['standardDeviation', 'coefficientOfVariation'].flatMap((name) => [name, `${name}Delta`]);

/**
 * One pass over a period, in the kind's statistic order: the values the clinic copy has, and each
 * flag beside its statistic. Glucose is in mmol/L, as stored, as Tidepool answers it.
 */
function legacyPeriod(period: ExportedPeriod, kind: SummaryKind): Record<string, unknown> {
  const values = period as Record<string, unknown>;
  const legacy: Record<string, unknown> = {};
  for (const name of FIELDS[kind]) {
    // A statistic the clinic copy withholds is absent from the exported period.
    const value = values[name] ?? undefined;
    if (value !== undefined) legacy[name] = value;
    const flag = FLAGS.get(name);
    if (flag) legacy[flag] = value !== undefined && value !== 0;
  }
  if (kind === 'cgm') for (const name of PLAIN_CGM) legacy[name] = values[name] ?? 0;
  return legacy;
}

const DATE_FIELDS = ['lastData', 'firstData', 'lastUploadDate', 'lastUpdatedDate', 'outdatedSince'] as const;
const FLAGGED_DATES = ['firstData', 'lastData', 'lastUploadDate', 'outdatedSince'] as const;

function legacyDates(dates: PeriodSummary['dates']): Record<string, unknown> {
  const legacy: Record<string, unknown> = {};
  for (const name of DATE_FIELDS) if (dates[name]) legacy[name] = dates[name].toISOString();
  for (const name of FLAGGED_DATES) legacy[flagName(name)] = Boolean(dates[name]);
  return legacy;
}

/**
 * Tidepool's `summary` of a clinic patient (`{cgmStats, bgmStats}`, each `{config, dates,
 * periods}` with periods keyed `1d` … `30d`) from its summaries; statistics the clinic copy
 * withholds are left out, as Tidepool leaves them out. Undefined without readings.
 * `offset`: the previous periods shown in their place (Tidepool's `offsetPeriods`).
 */
export async function legacySummary(
  summaries: SummariesByPeriod,
  { offset = false }: { offset?: boolean } = {},
): Promise<Record<string, unknown> | undefined> {
  const stats = async (kind: SummaryKind) => {
    const sides = PERIOD_KEYS.map((key) => [key, summaries.get(key)?.find((side) => side.kind === kind)] as const);
    // Every period of a kind comes from one stored summary with one set of dates: the first period's.
    const first = sides[0]![1];
    if (!first) return undefined;
    const periods: Record<string, unknown> = {};
    for (const [key, side] of sides)
      if (side) periods[key] = legacyPeriod(offset ? await side.previous : side.period, kind);
    return { config: CONFIG, dates: legacyDates(first.dates), periods };
  };
  const [cgmStats, bgmStats] = [await stats('cgm'), await stats('bgm')];
  if (!cgmStats && !bgmStats) return undefined;
  return { ...(cgmStats ? { cgmStats } : {}), ...(bgmStats ? { bgmStats } : {}) };
}

/** A clinic patient, as far as reading its summaries goes: what it grants the clinic decides what is read. */
export interface SummarisedPatient {
  userId: string;
  clinicId: string;
  permissions: readonly string[];
}

/**
 * The patient's legacy `summary` straight from the glucose service: every period's statistics
 * shaped once into Tidepool's JSON, without a GraphQL field per statistic (a page of 50 patients
 * has about 50,000 of them). The service's loaders read the page's summaries in one statement.
 */
export async function clinicPatientSummary(
  glucose: Pick<GlucoseService, 'summariesOfClinicPatient'>,
  scope: Scope,
  patient: SummarisedPatient,
  options: { offset?: boolean } = {},
): Promise<Record<string, unknown> | undefined> {
  const read = async (key: PeriodKey) => [key, await glucose.summariesOfClinicPatient(scope, patient, key)] as const;
  return legacySummary(new Map(await Promise.all(PERIOD_KEYS.map(read))), options);
}
