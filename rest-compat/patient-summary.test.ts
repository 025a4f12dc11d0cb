import { describe, expect, it } from '@jest/globals';
import { expectMatchesTidepoolModel } from '../test/support/openapi';
import { CGM_FIELDS } from '../src/domains/glucose/glucose-summary.types';
import type { PeriodSummary } from '../src/domains/glucose/glucose.service';
import type { ExportedPeriod } from '../src/domains/glucose/summary/export';
import { legacySummary, PERIOD_KEYS, type SummariesByPeriod } from './patient-summary';

const DATES = {
  lastData: new Date('2024-03-01T10:00:00.000Z'),
  firstData: new Date('2024-02-01T10:00:00.000Z'),
  lastUploadDate: new Date('2024-03-01T10:05:00.000Z'),
  lastUpdatedDate: new Date('2024-03-01T10:06:00.000Z'),
  outdatedSince: null,
};

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
const PREVIOUS = cgmPeriod({ totalRecords: 100 });

/** A patient's CGM summary for every period, as the glucose service reads it; no BGM. */
const patient: SummariesByPeriod = new Map(
  PERIOD_KEYS.map((key) => [
    key,
    [
      {
        kind: 'cgm',
        source: { userId: 'patient', period: key, clinic: null },
        dates: DATES,
        period: CURRENT,
        previous: Promise.resolve(PREVIOUS),
      } satisfies PeriodSummary,
    ],
  ]),
);

describe('legacySummary', () => {
  it('answers Tidepool’s cgmStats: config, dates with their has-flags, and each period keyed 1d … 30d', async () => {
    const summary = (await legacySummary(patient))!;
    expect(Object.keys(summary)).toEqual(['cgmStats']);
    const cgm = summary.cgmStats as { config: object; dates: object; periods: Record<string, Record<string, unknown>> };
    expect(cgm.config).toMatchObject({ schemaVersion: expect.any(Number), highGlucoseThreshold: 10 });
    expect(cgm.dates).toEqual({
      lastData: DATES.lastData.toISOString(),
      firstData: DATES.firstData.toISOString(),
      lastUploadDate: DATES.lastUploadDate.toISOString(),
      lastUpdatedDate: DATES.lastUpdatedDate.toISOString(),
      hasFirstData: true,
      hasLastData: true,
      hasLastUploadDate: true,
      hasOutdatedSince: false,
    });
    expect(Object.keys(cgm.periods)).toEqual(['1d', '7d', '14d', '30d']);
    await expectMatchesTidepoolModel(cgm.dates, 'summary/models/summaryDates.v1.yaml');
    await expectMatchesTidepoolModel(cgm.config, 'summary/models/summaryConfig.v1.yaml');
    await expectMatchesTidepoolModel(cgm.periods, 'summary/models/cgm/cgmPeriods.v1.yaml');
  });

  it('keeps the values the clinic copy has, flags each (true unless absent or 0), and leaves the rest out', async () => {
    const period = ((await legacySummary(patient))!.cgmStats as { periods: Record<string, Record<string, unknown>> })
      .periods['1d']!;
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

  it('shows the previous periods in their place when asked for the offset', async () => {
    const offset = (await legacySummary(patient, { offset: true }))!.cgmStats as {
      periods: Record<string, Record<string, unknown>>;
    };
    expect(offset.periods['7d']).toMatchObject({ totalRecords: 100, hasTotalRecords: true });
    expect(offset.periods['7d']).not.toHaveProperty('timeInTargetPercent');
  });

  it('is undefined for a patient without readings, or one who grants the clinic nothing', async () => {
    expect(await legacySummary(new Map(PERIOD_KEYS.map((key) => [key, []])))).toBeUndefined();
    expect(await legacySummary(new Map(PERIOD_KEYS.map((key) => [key, null])))).toBeUndefined();
  });

  it('lists each statistic in Tidepool’s order, whatever order the exported period holds them in', async () => {
    const reversed = Object.fromEntries(Object.entries(CURRENT).reverse()) as ExportedPeriod;
    const shuffled: SummariesByPeriod = new Map(
      [...patient].map(([key, sides]) => [key, sides!.map((side) => ({ ...side, period: reversed }))]),
    );
    const periods = (summary: Record<string, unknown> | undefined) =>
      JSON.stringify((summary!.cgmStats as { periods: unknown }).periods);
    expect(periods(await legacySummary(shuffled))).toBe(periods(await legacySummary(patient)));
    const keys = Object.keys(
      ((await legacySummary(patient))!.cgmStats as { periods: Record<string, object> }).periods['1d']!,
    );
    const statistics = keys.filter((name) => name in CURRENT);
    expect(statistics).toEqual(CGM_FIELDS.filter((name) => statistics.includes(name)));
  });
});
