import { describe, expect, it } from '@jest/globals';
import { clinicCopyPeriod, clinicCopyText } from './clinic-copy';
import type { ExportedPeriod } from './summary/export';
import { STAT_NAMES } from './summary/statistics';
import { summarise } from './summary/periods';
import { bucketsOf } from './summary/buckets';

/** Statistics the clinic copy always has (export.ts ALWAYS), here of a day with data, with their deltas. */
const ALWAYS = Object.fromEntries(
  Object.entries({ hoursWithData: 24, daysWithData: 1, min: 3.9, max: 12.1 }).flatMap(([name, value]) => [
    [name, value],
    [`${name}Delta`, 0],
  ]),
);

/** An exported CGM period: the statistics the clinic copy keeps, the others absent. */
const cgmPeriod = (values: Record<string, number>) => ({ ...ALWAYS, ...values }) as ExportedPeriod;

const CURRENT = cgmPeriod({
  totalRecords: 288,
  timeInTargetPercent: 0.9,
  timeInLowPercent: 0,
  averageGlucoseMmol: 7.2,
});

describe('clinicCopyPeriod', () => {
  it('keeps the values the clinic copy has, flags each (true unless absent or 0), and leaves the rest out', () => {
    const period = clinicCopyPeriod(CURRENT, 'cgm');
    expect(period).toMatchObject({
      totalRecords: 288,
      hasTotalRecords: true,
      timeInTargetPercent: 0.9,
      hasTimeInTargetPercent: true,
      timeInLowPercent: 0,
      hasTimeInLowPercent: false,
      averageGlucoseMmol: 7.2,
      hasAverageGlucoseMmol: true,
      hasGlucoseManagementIndicator: false,
      // Plain numbers in Tidepool's clinic copy: 0 when unset.
      standardDeviation: 0,
      coefficientOfVariation: 0,
      standardDeviationDelta: 0,
    });
    expect(period).not.toHaveProperty('glucoseManagementIndicator');
    expect(period).not.toHaveProperty('timeInHighPercent');
  });

  it('lists each statistic in the catalogue’s order, whatever order the exported period holds them in', () => {
    const reversed = Object.fromEntries(Object.entries(CURRENT).reverse()) as ExportedPeriod;
    expect(JSON.stringify(clinicCopyPeriod(reversed, 'cgm'))).toBe(JSON.stringify(clinicCopyPeriod(CURRENT, 'cgm')));
    const statistics = Object.keys(clinicCopyPeriod(CURRENT, 'cgm')).filter((name) => name in CURRENT);
    const order = STAT_NAMES.flatMap((name) => [name, `${name}Delta`]);
    expect(statistics).toEqual(order.filter((name) => statistics.includes(name)));
  });

  it('keeps BGM periods without the CGM-only plain numbers', () => {
    const period = clinicCopyPeriod({ ...ALWAYS, totalRecords: 40 } as ExportedPeriod, 'bgm');
    expect(period).toMatchObject({ totalRecords: 40, hasTotalRecords: true });
    expect(period).not.toHaveProperty('standardDeviation');
  });
});

describe('clinicCopyText', () => {
  it('is JSON of every period keyed 1d … 30d, each as clinicCopyPeriod shapes it', () => {
    const end = Date.UTC(2026, 10, 20);
    const readings = Array.from({ length: 3 * 288 }, (_, index) => ({
      time: end - 3 * 86_400_000 + index * 300_000,
      mmol: 4 + ((index * 37) % 90) / 10,
      minutes: 5,
    }));
    const summary = summarise(bucketsOf(readings, 'cgm'), 'cgm');
    const copy = JSON.parse(clinicCopyText(summary.periods, 'cgm')) as Record<string, Record<string, unknown>>;
    expect(Object.keys(copy)).toEqual(['1d', '7d', '14d', '30d']);
    expect(copy['1d']).toMatchObject({ totalRecords: 288, hasTotalRecords: true, timeCGMUsePercent: 1 });
    expect(copy['7d']).toMatchObject({ totalRecords: 3 * 288 });
  });
});
