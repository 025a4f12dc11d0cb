import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  asUser,
  AS_SERVER,
  contentOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { cbg } from '../../../test/support/glucose';
import type { GlucoseService } from './glucose.service';

/** The rule of reading-density.ts, through the upload that applies it (the default bound: 240 per hour). */
let world: DomainWorld;
let glucose: GlucoseService;

beforeAll(async () => {
  world = await startDomainWorld();
  glucose = world.services.glucose;
});
afterAll(() => world?.stop());

const HOUR = 3_600_000;
/** An hour of data two days ago (so every reading counts for summaries). */
const HOUR_START = Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR;

/** `count` readings spread over the hour starting at `hour`, `offset` milliseconds into it. */
const readingsIn = (hour: number, count: number, offset = 0) =>
  Array.from({ length: count }, (_, index) => cbg(hour + offset + index * 10_000, 100 + (index % 50)));

async function accountWith(dataSetType: 'continuous' | 'normal', deduplicator?: string) {
  const userId = await world.account();
  const body = deduplicator ? { dataSetType, deduplicator: { name: deduplicator } } : { dataSetType };
  const dataset = await glucose.createDataset(world.scope(asUser(userId)), userId, body);
  return { userId, datasetId: dataset.id };
}

const upload = (userId: string, datasetId: string, records: object[]) =>
  glucose.addData(world.scope(asUser(userId)), datasetId, contentOf(JSON.stringify(records), 'application/json'));

const stored = async (userId: string) =>
  (await world.database.query('select count(*)::int as n from glucose_readings where user_id = $1', [userId]))[0]!.n;

describe('readings per account and hour of data', () => {
  it('refuses an upload putting more than 240 readings in one hour, naming the hour, and stores none of it', async () => {
    const { userId, datasetId } = await accountWith('continuous');
    const records = [...readingsIn(HOUR_START - HOUR, 10), ...readingsIn(HOUR_START, 241)];
    await expect(upload(userId, datasetId, records)).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'time' },
      message: expect.stringContaining(
        `At most 240 glucose readings are kept per account and hour of data; with this upload the hour from ${new Date(HOUR_START).toISOString()} would hold 241`,
      ),
    });
    expect(await stored(userId)).toBe(0);
    expect(await upload(userId, datasetId, readingsIn(HOUR_START, 240))).toBe(240);
  });

  it('counts what the account already keeps in that hour, in any of its datasets', async () => {
    const { userId, datasetId } = await accountWith('continuous');
    expect(await upload(userId, datasetId, readingsIn(HOUR_START, 200))).toBe(200);
    const other = await glucose.createDataset(world.scope(asUser(userId)), userId, { dataSetType: 'normal' });
    await expect(upload(userId, other.id, readingsIn(HOUR_START, 41, 5_000))).rejects.toMatchObject({
      code: 'INVALID',
    });
    // Readings of an open dataset count before it closes: they will once it does.
    expect(await upload(userId, other.id, readingsIn(HOUR_START, 40, 5_000))).toBe(40);
    await expect(upload(userId, datasetId, readingsIn(HOUR_START, 1, 7_000))).rejects.toMatchObject({
      code: 'INVALID',
    });
    // The next hour is another hour.
    expect(await upload(userId, datasetId, readingsIn(HOUR_START + HOUR, 240))).toBe(240);
  });

  it('counts a record the deduplicator kept once, however often it was sent', async () => {
    const { userId, datasetId } = await accountWith('continuous', 'org.tidepool.deduplicator.dataset.drop.hash');
    const records = readingsIn(HOUR_START, 200);
    expect(await upload(userId, datasetId, records)).toBe(200);
    expect(await upload(userId, datasetId, records)).toBe(0);
    expect(await upload(userId, datasetId, [...records, ...readingsIn(HOUR_START, 40, 5_000)])).toBe(40);
  });

  it('lets a device upload its history again: readings the new upload deactivated do not count', async () => {
    const device = 'org.tidepool.deduplicator.device.deactivate.hash';
    const userId = await world.account();
    // Twice the densest CGM's 60 an hour: the old copy and the new one both count until the new one closes.
    const history = readingsIn(HOUR_START, 120);
    for (let time = 0; time < 3; time += 1) {
      const dataset = await glucose.createDataset(world.scope(asUser(userId)), userId, {
        dataSetType: 'normal',
        deduplicator: { name: device },
        deviceId: 'receiver-1',
      });
      expect(await upload(userId, dataset.id, history)).toBe(120);
      await glucose.closeDataset(world.scope(AS_SERVER), dataset.id);
    }
    expect(await stored(userId)).toBe(360);
  });
});
