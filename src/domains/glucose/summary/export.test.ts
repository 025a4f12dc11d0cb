import { describe, expect, it } from '@jest/globals';
import { bucketsOf, type Reading } from './buckets';
import { exportPeriod, glycemiaRisk } from './export';
import { summarise } from './periods';
import { mgdlToMmol } from './units';

const START = Date.parse('2024-05-01T00:00:00Z');
const cgm = (count: number, mgdl = 120, start = START): Reading[] =>
  Array.from({ length: count }, (_, index) => ({ time: start + index * 300_000, mmol: mgdlToMmol(mgdl), minutes: 5 }));

describe('what the clinic copy of a CGM period keeps', () => {
  it('keeps 1-day percentages only above 70% CGM use (202 five-minute readings, not 201)', () => {
    const exported = (count: number) =>
      exportPeriod(summarise(bucketsOf(cgm(count), 'cgm'), 'cgm').periods['1d'], 1, 'cgm');
    expect(exported(201).timeInTargetPercent).toBeUndefined();
    expect(exported(201).glucoseManagementIndicator).toBeUndefined();
    expect(exported(201).timeInTargetMinutes).toBe(1005);
    expect(exported(202).timeInTargetPercent).toBe(1);
    expect(exported(202).glucoseManagementIndicator).toBe(6.2);
  });

  it('keeps 7-day percentages only above 1440 CGM minutes (a full day is not enough)', () => {
    const week = (count: number) =>
      exportPeriod(summarise(bucketsOf(cgm(count), 'cgm'), 'cgm').periods['7d'], 7, 'cgm');
    expect(week(288).timeInTargetPercent).toBeUndefined();
    expect(week(288).timeCGMUsePercent).toBeCloseTo(0.142857, 6);
    expect(week(289).timeInTargetPercent).toBe(1);
    expect(week(289).glucoseManagementIndicator).toBeUndefined();
  });

  it('keeps a delta only when the previous period passed the same test', () => {
    const day = 24 * 3_600_000;
    const sparseThenFull = [...cgm(100, 120, START), ...cgm(288, 200, START + day)];
    const period = summarise(bucketsOf(sparseThenFull, 'cgm'), 'cgm').periods['1d'];
    const exported = exportPeriod(period, 1, 'cgm');
    expect(exported.timeInHighPercent).toBe(1);
    expect(exported.timeInHighPercentDelta).toBeUndefined();
    expect(exported.averageGlucoseMmolDelta).toBeCloseTo(mgdlToMmol(200) - mgdlToMmol(120), 4);
  });

  it('keeps nothing computed from readings when there are none', () => {
    const exported = exportPeriod(summarise([], 'cgm').periods['30d'], 30, 'cgm');
    expect(exported.averageGlucoseMmol).toBeUndefined();
    expect(exported.timeCGMUsePercent).toBeUndefined();
    expect(exported.totalRecords).toBe(0);
  });
});

describe('what the clinic copy of a BGM period keeps', () => {
  const fingersticks = (count: number, everyHours: number) =>
    Array.from({ length: count }, (_, index) => ({
      time: START + index * everyHours * 3_600_000,
      mmol: mgdlToMmol(index % 2 ? 100 : 160),
      minutes: 0,
    }));

  it('keeps percentages and the mean whenever there are records, SD and CV from 30 records over 7 days', () => {
    const few = exportPeriod(summarise(bucketsOf(fingersticks(28, 6), 'bgm'), 'bgm').periods['7d'], 7, 'bgm');
    expect(few.timeInTargetPercent).toBe(1);
    expect(few.averageGlucoseMmol).toBeCloseTo(mgdlToMmol(130), 3);
    expect(few.standardDeviation).toBeUndefined();
    expect(few.timeCGMUseMinutes).toBeUndefined();
    // 35 fingersticks 5 hours apart: 34 of them in the last 7 days, spread over 7 day-windows.
    const period = summarise(bucketsOf(fingersticks(35, 5), 'bgm'), 'bgm').periods['7d'];
    expect([period.totalRecords, period.daysWithData]).toEqual([34, 7]);
    expect(exportPeriod(period, 7, 'bgm').standardDeviation).toBeCloseTo(mgdlToMmol(130) - mgdlToMmol(100), 3);
  });
});

describe('glycemia risk index', () => {
  const bands = (veryLow: number, low: number, high: number, veryHigh: number) => ({
    timeInVeryLowPercent: veryLow,
    timeInLowPercent: low,
    timeInHighPercent: high,
    timeInVeryHighPercent: veryHigh,
    timeInTargetPercent: 1 - veryLow - low - high - veryHigh,
    timeInAnyLowPercent: veryLow + low,
    timeInAnyHighPercent: high + veryHigh,
    timeInExtremeHighPercent: 0,
  });

  it('weights the disjoint bands 3.0, 2.4, 1.6 and 0.8 and names the zone', () => {
    const risk = glycemiaRisk(bands(0.01, 0.04, 0.2, 0.05));
    expect(risk.glycemiaRiskIndex).toBeCloseTo(36.6, 10);
    expect(risk.glycemiaRiskZone).toBe('B');
    expect(glycemiaRisk(bands(0, 0, 0.25, 0)).glycemiaRiskZone).toBe('A');
    expect(glycemiaRisk(bands(0, 0, 0, 0)).glycemiaRiskIndex).toBe(0);
  });

  it('caps the index at 100 (zone E)', () => {
    expect(glycemiaRisk(bands(0.3, 0.2, 0.2, 0.3))).toEqual({ glycemiaRiskIndex: 100, glycemiaRiskZone: 'E' });
  });
});
