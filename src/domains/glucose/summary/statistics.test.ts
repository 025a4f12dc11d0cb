import { describe, expect, it } from '@jest/globals';
import { BGM_STAT_NAMES, EXPORTED_STAT_NAMES, FILTERABLE_STATS } from '../period-stats';
import {
  alwaysKeptOf,
  FLAGGED_STAT_NAMES,
  isFractionStat,
  isGlucoseStat,
  isIntegerStat,
  STAT_NAMES,
  statNamesOf,
} from './statistics';

// The lists as they were written out by hand before the catalogue: deriving them must not change one.
const RANGE_STATS = ['VeryLow', 'Low', 'Target', 'High', 'VeryHigh', 'ExtremeHigh', 'AnyLow', 'AnyHigh'].flatMap(
  (range) => ['Percent', 'Minutes', 'Records'].map((unit) => `timeIn${range}${unit}`),
);
const OTHER_STATS = [
  'timeCGMUsePercent',
  'timeCGMUseMinutes',
  'timeCGMUseRecords',
  'averageGlucoseMmol',
  'glucoseManagementIndicator',
  'standardDeviation',
  'coefficientOfVariation',
  'averageDailyRecords',
  'totalRecords',
  'hoursWithData',
  'daysWithData',
  'min',
  'max',
];
const NOT_BGM = [
  'timeInVeryLowMinutes',
  'timeInLowMinutes',
  'timeInTargetMinutes',
  'timeInHighMinutes',
  'timeInVeryHighMinutes',
  'timeInExtremeHighMinutes',
  'timeInExtremeHighRecords',
  'timeInAnyLowMinutes',
  'timeInAnyHighMinutes',
  'timeCGMUsePercent',
  'timeCGMUseMinutes',
  'timeCGMUseRecords',
  'glucoseManagementIndicator',
  'hoursWithData',
];
const rangeStats = (pattern: RegExp) => RANGE_STATS.filter((name) => pattern.test(name));
const ALWAYS_KEPT = {
  cgm: [
    ...rangeStats(/(Minutes|Records)$/),
    ...['timeCGMUseMinutes', 'timeCGMUseRecords', 'totalRecords', 'averageDailyRecords', 'hoursWithData'],
    ...['daysWithData', 'min', 'max'],
  ],
  bgm: [...rangeStats(/Records$/), 'totalRecords', 'averageDailyRecords', 'daysWithData', 'min', 'max'],
};
const INTEGER = [
  ...rangeStats(/(Minutes|Records)$/),
  ...['timeCGMUseMinutes', 'timeCGMUseRecords', 'totalRecords', 'hoursWithData', 'daysWithData'],
];
const GLUCOSE = ['averageGlucoseMmol', 'standardDeviation', 'min', 'max'];
const FRACTION = [...rangeStats(/Percent$/), 'timeCGMUsePercent'];
const NOT_FLAGGED = ['standardDeviation', 'coefficientOfVariation', 'hoursWithData', 'daysWithData', 'min', 'max'];

const withDeltas = (names: readonly string[]) => names.flatMap((name) => [name, `${name}Delta`]);
const sorted = (names: readonly string[]) => [...names].sort();

describe('the lists derived from the statistics catalogue', () => {
  it('names every statistic in Tidepool’s order, each with its delta in the clinic copy', () => {
    expect(STAT_NAMES).toEqual([...RANGE_STATS, ...OTHER_STATS]);
    expect(EXPORTED_STAT_NAMES).toEqual([
      ...STAT_NAMES,
      ...STAT_NAMES.map((name) => `${name}Delta`),
      'glycemiaRiskIndex',
    ]);
  });

  it('gives fingerstick summaries no minutes, CGM use, GMI, hours or extreme-high count', () => {
    const bgm = STAT_NAMES.filter((name) => !NOT_BGM.includes(name));
    expect(BGM_STAT_NAMES).toEqual(bgm);
    expect(statNamesOf('cgm')).toEqual(STAT_NAMES);
    expect(FILTERABLE_STATS).toEqual({ cgm: withDeltas(STAT_NAMES), bgm: withDeltas(bgm) });
  });

  it('keeps in the clinic copy, whatever the data, the counts and extremes of each kind', () => {
    expect(sorted(alwaysKeptOf('cgm'))).toEqual(sorted(ALWAYS_KEPT.cgm));
    expect(sorted(alwaysKeptOf('bgm'))).toEqual(sorted(ALWAYS_KEPT.bgm));
  });

  it('flags what Tidepool’s REST summary flags', () => {
    expect(FLAGGED_STAT_NAMES).toEqual(STAT_NAMES.filter((name) => !NOT_FLAGGED.includes(name)));
  });

  it.each([
    ['integer', isIntegerStat, INTEGER],
    ['glucose', isGlucoseStat, GLUCOSE],
    ['fraction', isFractionStat, FRACTION],
  ] as const)('tells %s statistics and their deltas, and nothing else', (_, test, expected) => {
    const names = [...EXPORTED_STAT_NAMES, 'averageGlucose', 'averageGlucoseDelta', 'glycemiaRiskZone', 'unknown'];
    expect(names.filter(test)).toEqual(withDeltas(expected).sort((a, b) => names.indexOf(a) - names.indexOf(b)));
  });
});
