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
import { exportPeriod } from './summary/export';
import { PERIODS, type PeriodKey, type SummaryPeriods } from './summary/periods';

let world: DomainWorld;
let glucose: GlucoseService;

beforeAll(async () => {
  world = await startDomainWorld();
  glucose = world.services.glucose;
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);
const FIVE_MINUTES = 5 * 60_000;
/** The last reading's time: recent, so every summary period holds the readings. */
const NOW = Math.floor(Date.now() / FIVE_MINUTES) * FIVE_MINUTES - 60 * 60_000;
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

  it('readers get each period and the one before it as clinics see them (exportPeriod of the stored summary)', async () => {
    const { userId } = await userWithReadings(400);
    const [stored] = await world.database.query(
      "select periods from glucose_summaries where user_id = $1 and kind = 'cgm'",
      [userId],
    );
    const { periods, offsetPeriods } = stored.periods as SummaryPeriods;
    for (const [key, days] of Object.entries(PERIODS) as [PeriodKey, number][]) {
      const [summary] = (await glucose.summariesOf(as(asUser(userId)), userId, key))!;
      expect(summary!.dates.lastData).toEqual(new Date(NOW));
      expect(summary!.period).toEqual(exportPeriod(periods[key], days, 'cgm'));
      expect(await summary!.previous).toEqual(exportPeriod(offsetPeriods[key], days, 'cgm'));
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
