import { describe, expect, it } from '@jest/globals';
import { expectMatchesTidepoolModel } from '../test/support/openapi';
import type { ClinicCopy } from '../src/domains/glucose/clinic-copy';
import { legacySummaryJson } from './patient-summary';

const DATES = {
  lastData: new Date('2024-03-01T10:00:00.000Z'),
  firstData: new Date('2024-02-01T10:00:00.000Z'),
  lastUploadDate: new Date('2024-03-01T10:05:00.000Z'),
  lastUpdatedDate: new Date('2024-03-01T10:06:00.000Z'),
  outdatedSince: null,
};

const PERIODS = JSON.stringify({ '1d': { totalRecords: 288, hasTotalRecords: true } });
const cgm: ClinicCopy = { kind: 'cgm', dates: DATES, periods: PERIODS };

describe('legacySummaryJson', () => {
  it('answers Tidepool’s cgmStats: config, dates with their has-flags, and the periods as kept', async () => {
    const summary = JSON.parse(legacySummaryJson([cgm])!.text);
    expect(Object.keys(summary)).toEqual(['cgmStats']);
    expect(Object.keys(summary.cgmStats)).toEqual(['config', 'dates', 'periods']);
    expect(summary.cgmStats.config).toMatchObject({ schemaVersion: expect.any(Number), highGlucoseThreshold: 10 });
    expect(summary.cgmStats.dates).toEqual({
      lastData: DATES.lastData.toISOString(),
      firstData: DATES.firstData.toISOString(),
      lastUploadDate: DATES.lastUploadDate.toISOString(),
      lastUpdatedDate: DATES.lastUpdatedDate.toISOString(),
      hasFirstData: true,
      hasLastData: true,
      hasLastUploadDate: true,
      hasOutdatedSince: false,
    });
    expect(JSON.stringify(summary.cgmStats.periods)).toBe(PERIODS);
    await expectMatchesTidepoolModel(summary.cgmStats.dates, 'summary/models/summaryDates.v1.yaml');
    await expectMatchesTidepoolModel(summary.cgmStats.config, 'summary/models/summaryConfig.v1.yaml');
  });

  it('lists cgmStats before bgmStats, whatever order the copies come in', () => {
    const both = legacySummaryJson([{ ...cgm, kind: 'bgm' }, cgm])!.text;
    expect(Object.keys(JSON.parse(both))).toEqual(['cgmStats', 'bgmStats']);
  });

  it('is undefined for a patient without readings, or one who grants the clinic nothing', () => {
    expect(legacySummaryJson([])).toBeUndefined();
    expect(legacySummaryJson(null)).toBeUndefined();
  });
});
