import { BGM_STAT_NAMES } from './period-stats';
import { exportPeriod, type ExportedPeriod } from './summary/export';
import { PERIODS, type PeriodKey, type PeriodWithDeltas, type SummaryPeriods } from './summary/periods';
import { FLAGGED_STAT_NAMES, STAT_NAMES } from './summary/statistics';
import type { SummaryKind } from './summary/buckets';

/**
 * Tidepool's clinic copy of a summary's periods, as its clinic service keeps them in the patient's
 * record and its patient list answers them: each period keyed `1d` … `30d`, holding the statistics
 * the clinic copy keeps (exportPeriod) in the catalogue's order, each flagged statistic beside its
 * `has<Name>` flag. The summary store writes it as JSON text beside the summary, so that a page
 * of 50 patients is answered without reading, exporting and shaping 400 periods of ~150
 * statistics on every request. What it holds follows the summary's rules: a change to this shape
 * needs a new SUMMARY_SCHEMA_VERSION, so that every summary is written again.
 */

const withDeltas = (names: readonly string[]) => names.flatMap((name) => [name, `${name}Delta`]);
/** Each kind's statistics with their deltas, in the order Tidepool's period lists them. */
const FIELDS: Record<SummaryKind, readonly string[]> = { cgm: withDeltas(STAT_NAMES), bgm: withDeltas(BGM_STAT_NAMES) };

export const flagName = (name: string) => `has${name[0]!.toUpperCase()}${name.slice(1)}`;
/** Each statistic flagged with `has<Name>` (true when the copy holds a value other than 0), and its flag. */
const FLAGS = new Map<string, string>(FLAGGED_STAT_NAMES.map((name) => [name, flagName(name)]));
/** Tidepool's clinic copy keeps CGM deviation and variation as plain numbers, 0 when unset. */
const PLAIN_CGM = ['standardDeviation', 'coefficientOfVariation'].flatMap((name) => [name, `${name}Delta`]);

/** One exported period in the clinic copy's form. Glucose is in mmol/L, as stored. */
export function clinicCopyPeriod(period: ExportedPeriod, kind: SummaryKind): Record<string, unknown> {
  const values = period as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const name of FIELDS[kind]) {
    // A statistic the clinic copy withholds is absent from the exported period.
    const value = values[name] ?? undefined;
    if (value !== undefined) copy[name] = value;
    const flag = FLAGS.get(name);
    if (flag) copy[flag] = value !== undefined && value !== 0;
  }
  if (kind === 'cgm') for (const name of PLAIN_CGM) copy[name] = values[name] ?? 0;
  return copy;
}

/** Every period of one side (current or previous) of a summary in the clinic copy's form, as JSON text. */
export function clinicCopyText(periods: Record<PeriodKey, PeriodWithDeltas>, kind: SummaryKind): string {
  const copy: Partial<Record<PeriodKey, Record<string, unknown>>> = {};
  for (const [key, days] of Object.entries(PERIODS) as [PeriodKey, number][])
    if (periods[key]) copy[key] = clinicCopyPeriod(exportPeriod(periods[key], days, kind), kind);
  return JSON.stringify(copy);
}

/** One side of a summary's clinic copy with the summary's dates, as the REST patient list reads it. */
export interface ClinicCopy {
  kind: SummaryKind;
  dates: {
    lastData: Date;
    firstData: Date | null;
    lastUploadDate: Date | null;
    lastUpdatedDate: Date | null;
    outdatedSince: Date | null;
  };
  /** The JSON text of the periods keyed `1d` … `30d`: bytes where kept (clinic-copy-cache.ts). */
  periods: string | Buffer;
}

/** Both sides of a summary's clinic copy, as the summary store writes them. */
export interface ClinicCopyTexts {
  current: string;
  previous: string;
}

export const clinicCopyTexts = (summary: SummaryPeriods, kind: SummaryKind): ClinicCopyTexts => ({
  current: clinicCopyText(summary.periods, kind),
  previous: clinicCopyText(summary.offsetPeriods, kind),
});
