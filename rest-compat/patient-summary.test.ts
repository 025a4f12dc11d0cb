import { describe, expect, it } from '@jest/globals';
import { expectMatchesTidepoolModel } from '../test/support/openapi';
import { CGM_FIELDS } from '../src/domains/glucose/glucose-summary.types';
import { legacySummary, SUMMARY_ALIASES, summaryFields } from './patient-summary';

const DATES = {
  lastData: '2024-03-01T10:00:00.000Z',
  firstData: '2024-02-01T10:00:00.000Z',
  lastUploadDate: '2024-03-01T10:05:00.000Z',
  lastUpdatedDate: '2024-03-01T10:06:00.000Z',
  outdatedSince: null,
};

/** Statistics the clinic copy always has (export.ts ALWAYS), here of a day with data. */
const ALWAYS = { hoursWithData: 24, daysWithData: 1, min: 3.9, max: 12.1 };

/** A CGM period as GraphQL answers it: every field asked, null where the clinic copy withholds it. */
function cgmPeriod(values: Record<string, number>): Record<string, unknown> {
  const always = Object.entries(ALWAYS).flatMap(([name, value]) => [
    [name, value],
    [`${name}Delta`, 0],
  ]);
  return { ...Object.fromEntries(CGM_FIELDS.map((name) => [name, null])), ...Object.fromEntries(always), ...values };
}

const CURRENT = cgmPeriod({
  totalRecords: 288,
  timeInTargetPercent: 0.9,
  timeInLowPercent: 0,
  averageGlucoseMmol: 7.2,
});
const PREVIOUS = cgmPeriod({ totalRecords: 100 });

/** A patient with CGM summaries for every period (`dates` on the first alias only, as asked) and no BGM. */
const patient = Object.fromEntries(
  SUMMARY_ALIASES.map((alias, index) => [
    alias,
    { cgm: { ...(index === 0 ? { dates: DATES } : {}), period: CURRENT, offsetPeriod: PREVIOUS }, bgm: null },
  ]),
);

describe('legacySummary', () => {
  it('answers Tidepool’s cgmStats: config, dates with their has-flags, and each period keyed 1d … 30d', async () => {
    const summary = legacySummary(patient)!;
    expect(Object.keys(summary)).toEqual(['cgmStats']);
    const cgm = summary.cgmStats as { config: object; dates: object; periods: Record<string, Record<string, unknown>> };
    expect(cgm.config).toMatchObject({ schemaVersion: expect.any(Number), highGlucoseThreshold: 10 });
    expect(cgm.dates).toEqual({
      lastData: DATES.lastData,
      firstData: DATES.firstData,
      lastUploadDate: DATES.lastUploadDate,
      lastUpdatedDate: DATES.lastUpdatedDate,
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

  it('keeps the values the clinic copy has, flags each (true unless absent or 0), and leaves the rest out', () => {
    const period = (legacySummary(patient)!.cgmStats as { periods: Record<string, Record<string, unknown>> }).periods[
      '1d'
    ]!;
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

  it('shows the previous periods in their place when asked for the offset', () => {
    const offset = legacySummary(patient, { offset: true })!.cgmStats as {
      periods: Record<string, Record<string, unknown>>;
    };
    expect(offset.periods['7d']).toMatchObject({ totalRecords: 100, hasTotalRecords: true });
    expect(offset.periods['7d']).not.toHaveProperty('timeInTargetPercent');
  });

  it('is undefined for a patient without readings (no dates on either kind)', () => {
    const empty = Object.fromEntries(SUMMARY_ALIASES.map((alias) => [alias, { cgm: null, bgm: null }]));
    expect(legacySummary(empty)).toBeUndefined();
    expect(legacySummary({})).toBeUndefined();
  });
});

describe('summaryFields', () => {
  it('asks every period under its alias in mmol/L, the dates once, and both periods only for the offset variable', () => {
    const plain = summaryFields();
    for (const [alias, period] of [
      ['summary1d', 'ONE_DAY'],
      ['summary30d', 'THIRTY_DAYS'],
    ])
      expect(plain).toContain(`${alias}: glucoseSummary(period: ${period}, units: MMOL_L)`);
    expect(plain.match(/dates \{/g)).toHaveLength(2);
    expect(plain).not.toContain('previousPeriod');
    const withOffset = summaryFields('offset');
    expect(withOffset).toContain('period @skip(if: $offset)');
    expect(withOffset).toContain('offsetPeriod: previousPeriod @include(if: $offset)');
  });
});
