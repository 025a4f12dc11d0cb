import { describe, expect, it } from '@jest/globals';
import { bucketsOf, type Reading } from './buckets';
import { cgmMinutes } from './minutes';
import { gmi, summarise } from './periods';
import { rangesOf } from './ranges';
import { mgdlToMmol } from './units';

const DAY_START = Date.parse('2024-05-01T00:00:00Z');
const MINUTE = 60_000;

/** Readings every `step` minutes from the day's start, with the given mg/dL values in order. */
function trace(values: number[], step = 5, minutes = 5, start = DAY_START): Reading[] {
  return values.map((mgdl, index) => ({ time: start + index * step * MINUTE, mmol: mgdlToMmol(mgdl), minutes }));
}

const repeat = (value: number, count: number) => Array<number>(count).fill(value);

describe('units and ranges', () => {
  it('stores mg/dL as mmol/L rounded to 5 decimals, half away from zero', () => {
    expect(mgdlToMmol(140)).toBe(7.77105);
    expect(mgdlToMmol(54)).toBe(2.9974);
    expect(mgdlToMmol(350)).toBe(19.42762);
    expect(mgdlToMmol(-54)).toBe(-2.9974);
  });

  it.each([
    [54, ['veryLow', 'anyLow']],
    [55, ['low', 'anyLow']],
    [70, ['low', 'anyLow']],
    [71, ['target']],
    [180, ['target']],
    [181, ['high', 'anyHigh']],
    [250, ['high', 'anyHigh']],
    [251, ['veryHigh', 'anyHigh']],
    [349, ['veryHigh', 'anyHigh']],
    [350, ['veryHigh', 'extremeHigh', 'anyHigh']],
  ])('classifies %i mg/dL by its stored mmol/L value', (mgdl, ranges) => {
    expect(rangesOf(mgdlToMmol(mgdl))).toEqual(ranges);
  });

  it('keeps the mmol/L boundaries themselves where Tidepool does', () => {
    expect(rangesOf(3.0)).toEqual(['low', 'anyLow']);
    expect(rangesOf(3.9)).toEqual(['target']);
    expect(rangesOf(10.0)).toEqual(['target']);
    expect(rangesOf(13.9)).toEqual(['high', 'anyHigh']);
    expect(rangesOf(19.4)).toEqual(['veryHigh', 'extremeHigh', 'anyHigh']);
  });

  it('credits minutes from the sample interval, then the device, then 5', () => {
    expect(cgmMinutes({ sampleInterval: 300_000 })).toBe(5);
    expect(cgmMinutes({ sampleInterval: 899_999 })).toBe(14);
    expect(cgmMinutes({ deviceId: 'AbbottFreeStyleLibre3-123' })).toBe(5);
    expect(cgmMinutes({ deviceId: 'AbbottFreeStyleLibre-123' })).toBe(15);
    expect(cgmMinutes({ deviceId: 'DexcomG7' })).toBe(5);
  });
});

describe('worked examples of Tidepool’s summaries', () => {
  // 3 × 50, 12 × 65, 200 × 120, 50 × 200, 20 × 260, 3 × 360 mg/dL; the last hour all 120.
  const FULL_DAY = [
    ...repeat(50, 3),
    ...repeat(65, 12),
    ...repeat(200, 50),
    ...repeat(260, 20),
    ...repeat(360, 3),
    ...repeat(120, 200),
  ];

  it('example 1: one full day of 288 five-minute readings', () => {
    const { periods } = summarise(bucketsOf(trace(FULL_DAY), 'cgm'), 'cgm');
    const day = periods['1d'];
    expect(day.timeCGMUseMinutes).toBe(1440);
    expect(day.totalRecords).toBe(288);
    expect(day.timeCGMUsePercent).toBe(1);
    expect(day.hoursWithData).toBe(24);
    expect(day.daysWithData).toBe(1);
    expect(day.averageDailyRecords).toBe(288);
    const expected = {
      timeInVeryLowPercent: 0.010417,
      timeInLowPercent: 0.041667,
      timeInAnyLowPercent: 0.052083,
      timeInTargetPercent: 0.694444,
      timeInHighPercent: 0.173611,
      timeInVeryHighPercent: 0.079861,
      timeInExtremeHighPercent: 0.010417,
      timeInAnyHighPercent: 0.253472,
      averageGlucoseMmol: 7.94258,
      standardDeviation: 2.89286,
      coefficientOfVariation: 0.36422,
    };
    for (const [name, value] of Object.entries(expected))
      expect([name, day[name as keyof typeof day]]).toEqual([name, expect.closeTo(value, 5)]);
    expect(day.glucoseManagementIndicator).toBe(6.7);
  });

  it('example 2: the same day seen in 7d', () => {
    const week = summarise(bucketsOf(trace(FULL_DAY), 'cgm'), 'cgm').periods['7d'];
    expect(week.timeCGMUsePercent).toBeCloseTo(0.142857, 6);
    expect(week.averageDailyRecords).toBeCloseTo(41.142857, 5);
    expect(week.timeCGMUseMinutes).toBe(1440);
  });

  it('example 3: a Libre 2 reading counts 15 minutes, with a 14:50 blackout', () => {
    const readings = trace(repeat(120, 96), 15, cgmMinutes({ deviceId: 'AbbottFreeStyleLibre-2' }));
    const day = summarise(bucketsOf(readings, 'cgm'), 'cgm').periods['1d'];
    expect(day.timeCGMUseMinutes).toBe(1440);
    expect(day.timeCGMUsePercent).toBe(1);
    const close = [
      { time: DAY_START, mmol: 7, minutes: 15 },
      { time: DAY_START + 14 * MINUTE + 49_000, mmol: 7, minutes: 15 },
      { time: DAY_START + 29 * MINUTE, mmol: 7, minutes: 15 },
    ];
    expect(summarise(bucketsOf(close, 'cgm'), 'cgm').periods['1d'].totalRecords).toBe(2);
  });

  it('example 4: a week of 28 fingersticks, by record count', () => {
    const values = [...repeat(50, 2), ...repeat(65, 3), ...repeat(120, 18), ...repeat(200, 4), 300];
    const readings = trace(values, 6 * 60, 0);
    const { periods } = summarise(bucketsOf(readings, 'bgm'), 'bgm');
    const week = periods['7d'];
    expect(week.timeInVeryLowPercent).toBeCloseTo(2 / 28, 10);
    expect(week.timeInLowPercent).toBeCloseTo(3 / 28, 10);
    expect(week.timeInAnyLowPercent).toBeCloseTo(5 / 28, 10);
    expect(week.timeInTargetPercent).toBeCloseTo(18 / 28, 10);
    expect(week.timeInHighPercent).toBeCloseTo(4 / 28, 10);
    expect(week.timeInVeryHighPercent).toBeCloseTo(1 / 28, 10);
    expect(week.timeInAnyHighPercent).toBeCloseTo(5 / 28, 10);
    expect(week.averageDailyRecords).toBe(4);
    expect(periods['14d'].averageDailyRecords).toBe(2);
    expect(periods['30d'].averageDailyRecords).toBeCloseTo(0.933, 3);
    expect(week.timeCGMUsePercent).toBe(0);
    expect(week.glucoseManagementIndicator).toBe(0);
  });

  it('example 5: a drop in time in range against the previous week', () => {
    // Two weeks of full wear: TIR 0.95 in the older week, 0.78 in the newer one.
    const week = 7 * 288;
    const older = [...repeat(120, Math.round(week * 0.95)), ...repeat(200, week - Math.round(week * 0.95))];
    const newer = [...repeat(200, week - Math.round(week * 0.78)), ...repeat(120, Math.round(week * 0.78))];
    const readings = trace([...older, ...newer]);
    const current = summarise(bucketsOf(readings, 'cgm'), 'cgm').periods['7d'];
    expect(current.timeInTargetPercent).toBeCloseTo(0.78, 3);
    expect(current.timeInTargetPercentDelta).toBeCloseTo(-0.17, 3);
    expect(current.timeCGMUseMinutesDelta).toBe(0);
  });

  it('example 6: de-duplication inside an hour', () => {
    const at = (offset: number, kind: 'cgm' | 'bgm' = 'cgm') => ({
      time: DAY_START + offset,
      mmol: 7,
      minutes: kind === 'cgm' ? 5 : 0,
    });
    const count = (readings: Reading[], kind: 'cgm' | 'bgm' = 'cgm') =>
      summarise(bucketsOf(readings, kind), kind).periods['1d'].totalRecords;
    expect(count([at(0), at(4 * MINUTE + 55_000)])).toBe(2);
    expect(count([at(0), at(2 * MINUTE)])).toBe(1);
    expect(count([at(0), at(0)])).toBe(1);
    expect(count([at(0, 'bgm'), at(0, 'bgm')], 'bgm')).toBe(2);
  });
});

describe('the rules around the examples', () => {
  it('accepts at most 61 readings in one hour', () => {
    const readings = Array.from({ length: 80 }, (_, index) => ({
      time: DAY_START + index * 40_000,
      mmol: 6,
      minutes: 0,
    }));
    expect(summarise(bucketsOf(readings, 'bgm'), 'bgm').periods['1d'].totalRecords).toBe(61);
  });

  it('anchors periods on the newest hour and counts days as greedy 24-hour windows', () => {
    // Three readings: now, 23 hours before, 25 hours before.
    const newest = DAY_START + 5 * 24 * 60 * MINUTE;
    const readings = [0, 23, 25].map((hoursAgo) => ({ time: newest - hoursAgo * 60 * MINUTE, mmol: 6, minutes: 5 }));
    const { periods, offsetPeriods } = summarise(bucketsOf(readings, 'cgm'), 'cgm');
    expect(periods['1d'].totalRecords).toBe(2);
    expect(offsetPeriods['1d'].totalRecords).toBe(1);
    expect(periods['7d'].daysWithData).toBe(2);
    expect(periods['7d'].hoursWithData).toBe(3);
    expect(periods['1d'].totalRecordsDelta).toBe(1);
  });

  it('leaves out the newest hour’s own variance, as Tidepool does', () => {
    // One hour only: its within-hour spread is dropped, so the deviation is 0.
    const readings = trace([100, 200, 100, 200]);
    const day = summarise(bucketsOf(readings, 'cgm'), 'cgm').periods['1d'];
    expect(day.standardDeviation).toBe(0);
    expect(day.averageGlucoseMmol).toBeCloseTo(mgdlToMmol(150), 4);
  });

  it('answers zeros for periods no data reaches', () => {
    const { periods } = summarise([], 'cgm');
    expect(periods['14d'].totalRecords).toBe(0);
    expect(periods['14d'].averageGlucoseMmol).toBe(0);
  });

  it('computes GMI from the mean in mmol/L', () => {
    expect(gmi(mgdlToMmol(154))).toBe(7);
  });
});
