import { STAT_NAMES, statNamesOf, type StatName } from './summary/statistics';
import type { SummaryKind } from './summary/buckets';

export { isFractionStat, isGlucoseStat, isIntegerStat } from './summary/statistics';

/**
 * The statistics of glucose_period_stats, the table clinics filter and sort their patients on
 * and the TIDE report reads: one row per (user, kind, period, previous), one column per
 * statistic of exportPeriod, NULL where it leaves the statistic out. Other domains query the
 * table through these names, never through the entity.
 */
export const PERIOD_STATS_TABLE = 'glucose_period_stats';

/** A numeric statistic of a period as the clinic copy names it, deltas included. */
export type ExportedStatName = StatName | `${StatName}Delta` | 'glycemiaRiskIndex';

/** Every numeric statistic exportPeriod can emit: each statistic, its delta, the risk index. */
export const EXPORTED_STAT_NAMES: readonly ExportedStatName[] = [
  ...STAT_NAMES,
  ...STAT_NAMES.map((name) => `${name}Delta` as const),
  'glycemiaRiskIndex',
];

/**
 * The column of a statistic: snake case of its name, with `CGM` as one word
 * (`timeCGMUsePercent` → `time_cgm_use_percent`, `timeInVeryLowPercentDelta` →
 * `time_in_very_low_percent_delta`). A fixed contract: the TIDE report queries these names.
 */
export const statColumn = (name: string): string =>
  name.replace('CGM', 'Cgm').replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Statistic name → column name, for every numeric statistic. */
export const STAT_COLUMNS: Readonly<Record<ExportedStatName, string>> = Object.fromEntries(
  EXPORTED_STAT_NAMES.map((name) => [name, statColumn(name)]),
) as Record<ExportedStatName, string>;

const withDeltas = (names: readonly StatName[]) => names.flatMap((name) => [name, `${name}Delta` as const]);

/**
 * The statistics a fingerstick summary has: no minutes, CGM use or GMI (docs/summaries.md, What
 * the clinic copy keeps).
 */
export const BGM_STAT_NAMES: readonly StatName[] = statNamesOf('bgm');

/**
 * The statistics a clinic filters and sorts patients on, per kind, each with its delta: every
 * statistic the kind's summary has (the catalogue's `kinds`), as Tidepool's clinic service lists them.
 */
export const FILTERABLE_STATS: Readonly<Record<SummaryKind, readonly ExportedStatName[]>> = {
  cgm: withDeltas(statNamesOf('cgm')),
  bgm: withDeltas(BGM_STAT_NAMES),
};
