import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_CLIENT,
  AS_SERVER,
  asUser,
  contentOf,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { cbg } from '../../../test/support/glucose';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import type { GlucoseService } from './glucose.service';
import { PERIODS, type PeriodKey } from './summary/periods';

let world: DomainWorld;
let glucose: GlucoseService;

beforeAll(async () => {
  world = await startDomainWorld();
  glucose = world.services.glucose;
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);
const FIVE_MINUTES = 5 * 60_000;
/**
 * The last reading's time: recent, so every summary period holds the readings, and at minute 55
 * of its hour, so every hour of readings ending there holds twelve (the summaries count by hour).
 */
const NOW = Math.floor(Date.now() / 3_600_000) * 3_600_000 - FIVE_MINUTES;
const RANGE = { types: ['cbg', 'smbg'] as const, from: new Date(NOW - 2 * 86_400_000), to: new Date(NOW) };

/** `count` readings five minutes apart, ending at NOW. */
const readingsUpTo = (count: number) =>
  Array.from({ length: count }, (_, index) => cbg(NOW - (count - 1 - index) * FIVE_MINUTES, 90 + (index % 80)));
const upload = (principal: Principal, datasetId: string, records: object[]) =>
  glucose.addData(as(principal), datasetId, contentOf(JSON.stringify(records), 'application/json'));

/** A user with a continuous dataset of `count` readings, its summaries brought up to date. */
async function userWithReadings(count = 36) {
  const userId = await world.account();
  const dataset = await glucose.createDataset(as(asUser(userId)), userId, { dataSetType: 'continuous' });
  expect(await upload(asUser(userId), dataset.id, readingsUpTo(count))).toBe(count);
  await world.services.summaryUpdater.idle();
  return { userId, datasetId: dataset.id };
}
const readingsSeenBy = async (principal: Principal, userId: string) =>
  (await glucose.readingsOf(as(principal), userId, RANGE, {})).count();
/** `expected` with its fractions compared to four decimals (what the hand arithmetic keeps). */
const withFloats = (expected: object) =>
  Object.fromEntries(
    Object.entries(expected).map(([name, value]) => [
      name,
      typeof value === 'number' && !Number.isInteger(value) ? expect.closeTo(value, 4) : value,
    ]),
  );
const rowsOf = async (table: string, userId: string) =>
  (await world.database.query(`select count(*)::int as n from ${table} where user_id = $1`, [userId]))[0].n;

describe('who reads a user’s readings', () => {
  it('the user, a grantee with view, a clinic the user granted view, and servers', async () => {
    const { userId } = await userWithReadings();
    const [grantee, clinician] = [await world.account(), await world.account()];
    await world.share(userId, grantee, ['view']);
    await world.clinic({ clinicianId: clinician, patients: { [userId]: ['view'] } });
    for (const reader of [asUser(userId), asUser(grantee), asUser(clinician), AS_SERVER])
      expect(await readingsSeenBy(reader, userId)).toBe(36);
    expect((await glucose.summariesOf(as(asUser(clinician)), userId, '1d'))?.map((summary) => summary.kind)).toEqual([
      'cgm',
    ]);
  });

  it('an outsider, a clinician of a clinic the user granted nothing, or a client get nothing at all', async () => {
    const { userId } = await userWithReadings();
    const [outsider, clinician] = [await world.account(), await world.account()];
    await world.clinic({ clinicianId: clinician, patients: { [userId]: [] } });
    for (const reader of [asUser(outsider), asUser(clinician), AS_CLIENT]) {
      expect(await readingsSeenBy(reader, userId)).toBe(0);
      expect(await glucose.summariesOf(as(reader), userId, '14d')).toBeNull();
      expect(await outcomeOf(glucose.datasets(as(reader), userId, {}))).toBe('FORBIDDEN');
    }
    expect(await outcomeOf(glucose.readings(as(ANONYMOUS), userId, RANGE))).toBe('UNAUTHENTICATED');
  });

  it('a reading list needs a time range that runs forward', async () => {
    const { userId } = await userWithReadings(1);
    await expect(glucose.readingsOf(as(asUser(userId)), userId, { ...RANGE, from: null }, {})).rejects.toMatchObject({
      code: 'INVALID',
    });
    await expect(
      glucose.readingsOf(as(asUser(userId)), userId, { ...RANGE, from: RANGE.to, to: RANGE.from }, {}),
    ).rejects.toMatchObject({ code: 'INVALID', details: { field: 'from' } });
  });
});

describe('datasets', () => {
  it('a viewer may not upload; an uploader may', async () => {
    const { userId, datasetId } = await userWithReadings(1);
    const [viewer, uploader] = [await world.account(), await world.account()];
    await world.share(userId, viewer, ['view']);
    await world.share(userId, uploader, ['upload']);
    expect(await outcomeOf(upload(asUser(viewer), datasetId, readingsUpTo(1)))).toBe('FORBIDDEN');
    expect(await outcomeOf(glucose.createDataset(as(asUser(viewer)), userId, {}))).toBe('FORBIDDEN');
    expect(await outcomeOf(glucose.createDataset(as(asUser(uploader)), userId, {}))).toBe('ok');
  });

  it('only a server closes a continuous dataset; a closed one refuses more records with a CONFLICT', async () => {
    const { userId, datasetId } = await userWithReadings(2);
    expect(await outcomeOf(glucose.closeDataset(as(asUser(userId)), datasetId))).toBe('FORBIDDEN');
    expect((await glucose.closeDataset(as(AS_SERVER), datasetId)).state).toBe('closed');
    expect(await outcomeOf(upload(asUser(userId), datasetId, [cbg(NOW - 86_400_000, 120)]))).toBe('CONFLICT');
    expect(await outcomeOf(glucose.closeDataset(as(AS_SERVER), datasetId))).toBe('CONFLICT');
    expect(await readingsSeenBy(asUser(userId), userId)).toBe(2);
  });

  it('uploads to one dataset at once all land, each record once, whatever order they send it in', async () => {
    const deduplicators = ['dataset.drop.hash', 'dataset.delete.origin'];
    for (const name of deduplicators.map((tail) => `org.tidepool.deduplicator.${tail}`)) {
      const userId = await world.account();
      const body = { dataSetType: 'continuous', deduplicator: { name } };
      const dataset = await glucose.createDataset(as(asUser(userId)), userId, body);
      const records = readingsUpTo(300).map((record, index) => ({ ...record, origin: { id: `reading-${index}` } }));
      // Overlapping, two of them backwards: each waits on records another stores first.
      const parts = [records.slice(0, 200), records.slice(100).reverse(), records.slice(50, 250).reverse(), records];
      const stored = await Promise.all(parts.map((part) => upload(asUser(userId), dataset.id, part)));
      if (name.endsWith('hash')) expect(stored.reduce((sum, count) => sum + count)).toBe(300);
      expect(await readingsSeenBy(asUser(userId), userId)).toBe(300);
    }
  });

  it('a normal dataset’s records count once its owner closes it', async () => {
    const userId = await world.account();
    const dataset = await glucose.createDataset(as(asUser(userId)), userId, {});
    expect(dataset).toMatchObject({ dataSetType: 'normal', state: 'open' });
    await upload(asUser(userId), dataset.id, readingsUpTo(3));
    expect(await readingsSeenBy(asUser(userId), userId)).toBe(0);
    await glucose.closeDataset(as(asUser(userId)), dataset.id);
    expect(await readingsSeenBy(asUser(userId), userId)).toBe(3);
  });

  it('its opener or the owner deletes it with its records; another uploader may not', async () => {
    const userId = await world.account();
    const [opener, otherUploader] = [await world.account(), await world.account()];
    await world.share(userId, opener, ['upload']);
    await world.share(userId, otherUploader, ['upload']);
    const opened = await glucose.createDataset(as(asUser(opener)), userId, { dataSetType: 'continuous' });
    await upload(asUser(opener), opened.id, readingsUpTo(4));
    expect(await outcomeOf(glucose.deleteDataset(as(asUser(otherUploader)), opened.id))).toBe('FORBIDDEN');
    await glucose.deleteDataset(as(asUser(opener)), opened.id);
    expect(await readingsSeenBy(asUser(userId), userId)).toBe(0);
    const own = await glucose.createDataset(as(asUser(opener)), userId, {});
    await glucose.deleteDataset(as(asUser(userId)), own.id);
    expect(await outcomeOf(glucose.dataset(as(asUser(userId)), own.id))).toBe('NOT_FOUND');
  });

  it('a dataset body with a field that is not a dataset’s is INVALID, naming it', async () => {
    const userId = await world.account();
    await expect(glucose.createDataset(as(asUser(userId)), userId, { colour: 'red' })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'colour' },
    });
    expect((await glucose.datasets(as(asUser(userId)), userId, {})).page.nodes).toEqual([]);
  });

  it('an unknown dataset is NOT_FOUND, a malformed id INVALID', async () => {
    const { userId } = await userWithReadings(1);
    expect(await outcomeOf(glucose.dataset(as(asUser(userId)), 'a'.repeat(32)))).toBe('NOT_FOUND');
    expect(await outcomeOf(glucose.dataset(as(asUser(userId)), 'nope'))).toBe('INVALID');
  });
});

// What readingsUpTo(400) makes of each period, worked out by hand. readingsUpTo(400): reading i (0 to 399) is 90 + (i % 80) mg/dL, five minutes (so five
// minutes of CGM use) each, the last at NOW, minute 55 of its hour: 33 hours of 12 readings
// and the 4 oldest in the hour before them. All within 70-180 mg/dL: in target.
// 90 mg/dL = 4.99567 mmol/L, 169 mg/dL = 9.38076 (÷ 18.01559, 5 decimals).
// Σ(90..169) = 80 × 129.5 = 10,360; Σ(90..169)² = 1,384,280.
const inTarget = (records: number) => ({
  timeInTargetRecords: records,
  timeInTargetMinutes: records * 5,
  timeInLowRecords: 0,
  timeInHighRecords: 0,
  timeCGMUseRecords: records,
  timeCGMUseMinutes: records * 5,
  totalRecords: records,
});
// 1d: the newest 24 hours, 24 × 12 = 288 readings (i = 112 to 399): three rounds of 90..169
// and 122..169 once more (Σ 6,984; Σ² 1,025,384). Mean 38,064 / 288 = 132.1667 mg/dL
// = 7.3362 mmol/L; variance 5,178,224 / 288 − 132.1667² = 511.92, SD 22.626 mg/dL = 1.2559
// mmol/L, CV 1.2559 / 7.3362 = 0.1712; use 1,440 / 1,440 minutes = 1; GMI 0.09148 × (12.71
// + 4.70587 × 7.3362) + 2.152 = 6.47 → 6.5.
const day = {
  ...inTarget(288),
  averageDailyRecords: 288,
  hoursWithData: 24,
  daysWithData: 1,
  min: 4.99567,
  max: 9.38076,
  timeCGMUsePercent: 1,
  timeInTargetPercent: 1,
  glycemiaRiskIndex: 0,
  glycemiaRiskZone: 'A',
  glucoseManagementIndicator: 6.5,
  // Against the day before: 288 − 112 readings, 24 − 10 hours.
  totalRecordsDelta: 176,
  timeCGMUseMinutesDelta: 880,
  hoursWithDataDelta: 14,
  daysWithDataDelta: 0,
};
// The day before: the 112 oldest readings (i = 0 to 111) in 10 hours: 90..169 once and
// 90..121 (Σ 3,376; Σ² 358,896). Mean 13,736 / 112 = 122.643 mg/dL = 6.8076 mmol/L;
// variance 1,743,176 / 112 − 122.643² = 522.80, SD 22.865 mg/dL = 1.2692; CV 0.1864; use
// 560 / 1,440 = 0.3889, too little for percentages (1d needs more than 0.7) or a GMI.
const dayBefore = {
  ...inTarget(112),
  averageDailyRecords: 112,
  hoursWithData: 10,
  daysWithData: 1,
  min: 4.99567,
  max: 9.38076,
  timeCGMUsePercent: 0.3889,
};
// 7, 14 and 30 days: all 400 readings, five rounds of 90..169, in 34 hours (2 days of data).
// Mean 129.5 mg/dL = 7.1882 mmol/L; variance (80² − 1) / 12 = 533.25, SD 23.092 mg/dL =
// 1.2818; CV 0.1783; use 2,000 minutes, more than the 1,440 percentages need, but under
// 0.7 of the period: no GMI. Nothing before them, so no deltas but the counts'.
const longer = (days: number) => ({
  ...inTarget(400),
  totalRecordsDelta: 400,
  averageDailyRecords: 400 / days,
  hoursWithData: 34,
  daysWithData: 2,
  min: 4.99567,
  max: 9.38076,
  timeCGMUsePercent: 2000 / (days * 1440),
  timeInTargetPercent: 1,
  glycemiaRiskIndex: 0,
  glycemiaRiskZone: 'A',
});
const HAND_COMPUTED: Record<PeriodKey, { period: object; mean: number; sd: number; cv: number; before?: object }> = {
  '1d': { period: day, mean: 7.3362, sd: 1.2559, cv: 0.1712, before: dayBefore },
  '7d': { period: longer(7), mean: 7.1882, sd: 1.2818, cv: 0.1783 },
  '14d': { period: longer(14), mean: 7.1882, sd: 1.2818, cv: 0.1783 },
  '30d': { period: longer(30), mean: 7.1882, sd: 1.2818, cv: 0.1783 },
};

describe('summaries', () => {
  it('a rebuild from all records equals what the updater wrote', async () => {
    const { userId, datasetId } = await userWithReadings(300);
    // Older readings arriving later make the updater rework part of what it wrote.
    const earlier = readingsUpTo(24).map((record) => ({
      ...record,
      time: new Date(Date.parse(record.time) - 300 * FIVE_MINUTES).toISOString(),
    }));
    await upload(asUser(userId), datasetId, earlier);
    await world.services.summaryUpdater.idle();
    const stored = () =>
      world.database.query(
        'select kind, periods, first_data, last_data from glucose_summaries where user_id = $1 order by kind',
        [userId],
      );
    const incremental = await stored();
    expect(incremental.map((row) => row.kind)).toEqual(['cgm']);
    await glucose.rebuildSummaries(as(AS_SERVER), userId);
    expect(await stored()).toEqual(incremental);
  });

  it('readers get each period and the one before it as clinics see them', async () => {
    const { userId } = await userWithReadings(400);
    for (const key of Object.keys(PERIODS) as PeriodKey[]) {
      const [summary] = (await glucose.summariesOf(as(asUser(userId)), userId, key))!;
      const { period, mean, sd, cv, before } = HAND_COMPUTED[key];
      expect(summary!.dates.lastData).toEqual(new Date(NOW));
      expect(summary!.period).toMatchObject(withFloats(period));
      expect(summary!.period.averageGlucoseMmol).toBeCloseTo(mean, 3);
      expect(summary!.period.standardDeviation).toBeCloseTo(sd, 2);
      expect(summary!.period.coefficientOfVariation).toBeCloseTo(cv, 3);
      const previous = await summary!.previous;
      if (before) {
        expect(previous).toMatchObject(withFloats(before));
        expect(previous!.averageGlucoseMmol).toBeCloseTo(6.8076, 3);
        // The delta clinics see against the day before: 7.3362 − 6.8076.
        expect(summary!.period.averageGlucoseMmolDelta).toBeCloseTo(0.5286, 3);
        // Coverage too low for percentages and GMI: left out, not zero (docs/summaries.md, What the clinic copy keeps).
        expect(previous).not.toHaveProperty('timeInTargetPercent');
        expect(previous).not.toHaveProperty('glucoseManagementIndicator');
        // The day's percentages have no delta: the day before had none.
        expect(summary!.period).not.toHaveProperty('timeInTargetPercentDelta');
      } else {
        // No readings before: only the counts, all zero; nothing computed from readings.
        expect(previous).toMatchObject({ totalRecords: 0, timeCGMUseMinutes: 0, hoursWithData: 0, min: 0, max: 0 });
        expect(previous).not.toHaveProperty('averageGlucoseMmol');
        expect(previous).not.toHaveProperty('timeCGMUsePercent');
        expect(summary!.period).not.toHaveProperty('averageGlucoseMmolDelta');
        expect(summary!.period).not.toHaveProperty('glucoseManagementIndicator');
      }
    }
  });

  it('only a server rebuilds them', async () => {
    const { userId } = await userWithReadings(1);
    expect(await outcomeOf(glucose.rebuildSummaries(as(asUser(userId)), userId))).toBe('FORBIDDEN');
    expect(await outcomeOf(glucose.rebuildSummaries(as(ANONYMOUS), userId))).toBe('UNAUTHENTICATED');
  });
});

describe('an account going away', () => {
  it('takes its readings, datasets, summaries and period statistics with it, the clinic copy too', async () => {
    const { userId } = await userWithReadings();
    const clinician = await world.account();
    await world.clinic({ clinicianId: clinician, patients: { [userId]: ['view'] } });
    const tables = [
      'glucose_readings',
      'glucose_reading_shapes',
      'datasets',
      'glucose_summaries',
      'glucose_period_stats',
      'clinic_patient_period_stats',
    ];
    for (const table of tables) expect(await rowsOf(table, userId)).toBeGreaterThan(0);
    const other = await userWithReadings(2);
    await world.services.lifecycle.delete(as(AS_SERVER), userId, undefined);
    for (const table of tables) expect(await rowsOf(table, userId)).toBe(0);
    expect(await readingsSeenBy(asUser(other.userId), other.userId)).toBe(2);
  });
});
