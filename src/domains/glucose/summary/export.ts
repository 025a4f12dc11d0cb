import { capitalised, STAT_NAMES, type PeriodWithDeltas, type StatName } from './periods';
import { RANGES } from './ranges';
import { alwaysKeptOf } from './statistics';
import type { SummaryKind } from './buckets';

/** A period as clinics see it: only the statistics Tidepool's clinic copy keeps (B.8). */
export type ExportedPeriod = Partial<Record<StatName | `${StatName}Delta`, number>> & Partial<GlycemiaRisk>;

const PERCENTS = RANGES.map((name) => `timeIn${capitalised(name)}Percent` as StatName);
/** What each kind's clinic copy keeps however little data there is (the catalogue says). */
const ALWAYS: Record<SummaryKind, readonly StatName[]> = { cgm: alwaysKeptOf('cgm'), bgm: alwaysKeptOf('bgm') };

/** Each statistic's delta name, built once: every summary read exports hundreds of them. */
const DELTA = Object.fromEntries(STAT_NAMES.map((name) => [name, `${name}Delta` as const])) as {
  [Name in StatName]: `${Name}Delta`;
};

/** The previous period's value of a statistic, rebuilt as current − delta like clinic-worker does. */
const previous = (period: PeriodWithDeltas, name: StatName) => period[name] - period[DELTA[name]];

/** Time-in-range percentages mean something once CGM covered most of the period (strict tests). */
function cgmCoverageEnough(use: number, useMinutes: number, days: number): boolean {
  return days <= 1 ? use > 0.7 : useMinutes > 1440;
}

/**
 * What Tidepool's clinic service stores of one period, and so what patient-list filters and the
 * TIDE report see: statistics that would mislead on too little data are left out (not zero).
 */
export function exportPeriod(period: PeriodWithDeltas, days: number, kind: SummaryKind): ExportedPeriod {
  const exported: ExportedPeriod = {};
  const copy = (names: readonly StatName[], withDelta: boolean) => {
    for (const name of names) {
      exported[name] = period[name];
      if (withDelta) exported[DELTA[name]] = period[DELTA[name]];
    }
  };
  copy(ALWAYS[kind], true);
  const hasRecords = period.totalRecords !== 0;
  const hadRecords = previous(period, 'totalRecords') !== 0;
  if (kind === 'cgm') {
    if (hasRecords)
      copy(['timeCGMUsePercent', 'averageGlucoseMmol', 'standardDeviation', 'coefficientOfVariation'], hadRecords);
    const covered = (use: number, minutes: number) => cgmCoverageEnough(use, minutes, days);
    if (covered(period.timeCGMUsePercent, period.timeCGMUseMinutes)) {
      copy(PERCENTS, covered(previous(period, 'timeCGMUsePercent'), previous(period, 'timeCGMUseMinutes')));
      Object.assign(exported, glycemiaRisk(period));
    }
    if (period.timeCGMUsePercent > 0.7)
      copy(['glucoseManagementIndicator'], previous(period, 'timeCGMUsePercent') > 0.7);
  } else if (hasRecords) {
    copy([...PERCENTS, 'averageGlucoseMmol'], hadRecords);
    if (period.totalRecords >= 30 && period.daysWithData >= 7)
      copy(['standardDeviation', 'coefficientOfVariation'], true);
  }
  return exported;
}

export interface GlycemiaRisk {
  glycemiaRiskIndex: number;
  glycemiaRiskZone: 'A' | 'B' | 'C' | 'D' | 'E';
}

/**
 * The Glycemia Risk Index (Klonoff et al. 2022) over the disjoint bands, in percent units and
 * capped at 100, with its zone: A up to 20, B up to 40, C up to 60, D up to 80, E above.
 */
export function glycemiaRisk(
  period: Record<'timeInVeryLowPercent' | 'timeInLowPercent' | 'timeInHighPercent' | 'timeInVeryHighPercent', number>,
): GlycemiaRisk {
  const index = Math.min(
    100,
    100 *
      (3.0 * period.timeInVeryLowPercent +
        2.4 * period.timeInLowPercent +
        1.6 * period.timeInVeryHighPercent +
        0.8 * period.timeInHighPercent),
  );
  const zones = ['A', 'B', 'C', 'D', 'E'] as const;
  return { glycemiaRiskIndex: index, glycemiaRiskZone: zones[Math.min(4, Math.max(0, Math.ceil(index / 20) - 1))]! };
}
