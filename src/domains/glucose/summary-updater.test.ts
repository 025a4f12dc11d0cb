import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import {
  asUser,
  AS_SERVER,
  contentOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { cbg } from '../../../test/support/glucose';
import type { GlucoseService } from './glucose.service';
import { updateSummary } from './summary-store';
import { SummaryUpdater } from './summary-updater';

/**
 * The updater's turns, on a real database: the services' own updater is stopped, and one that
 * reads 1,000 readings a turn is run by hand.
 */
let world: DomainWorld;
let glucose: GlucoseService;
let updater: SummaryUpdater;

beforeAll(async () => {
  world = await startDomainWorld();
  glucose = world.services.glucose;
  await world.services.summaryUpdater.close();
  updater = new SummaryUpdater(() => world.orm.em.fork(), pino({ level: 'silent' }), 1_000);
});
afterAll(async () => {
  await updater?.close();
  await world?.stop();
});

const HOUR = 3_600_000;
const NEWEST_HOUR = Math.floor(Date.now() / HOUR) * HOUR - HOUR;

/** `perHour` readings in each of the `hours` hours up to the newest. */
const readings = (hours: number, perHour: number) =>
  Array.from({ length: hours * perHour }, (_, index) =>
    cbg(
      NEWEST_HOUR - (hours - 1) * HOUR + Math.floor(index / perHour) * HOUR + (index % perHour) * 30_000,
      90 + (index % 90),
    ),
  );

async function accountWithDataset() {
  const userId = await world.account();
  const dataset = await glucose.createDataset(world.scope(asUser(userId)), userId, { dataSetType: 'continuous' });
  const upload = async (records: object[]) => {
    for (let start = 0; start < records.length; start += 1_000)
      await glucose.addData(
        world.scope(asUser(userId)),
        dataset.id,
        contentOf(JSON.stringify(records.slice(start, start + 1_000)), 'application/json'),
      );
  };
  return { userId, upload };
}

async function runUpdater() {
  updater.nudge();
  await updater.idle();
}

const summaryOf = async (userId: string) =>
  (
    await world.database.query(
      `select last_updated_date, outdated_since, queued_at, periods from glucose_summaries where user_id = $1 and kind = 'cgm'`,
      [userId],
    )
  )[0]!;

describe('the summary updater', () => {
  it('splits a large rebuild into turns and updates another account’s summary between them', async () => {
    const attacker = await accountWithDataset();
    await attacker.upload(readings(50, 100));
    await runUpdater();
    expect((await summaryOf(attacker.userId)).outdated_since).toBeNull();
    // One record at the start of the window makes the summary rebuild its 5,000 readings: five turns.
    await attacker.upload([cbg(NEWEST_HOUR - 50 * HOUR + 60_000, 120)]);
    const victim = await accountWithDataset();
    await victim.upload(readings(2, 12));
    await runUpdater();
    const [rebuilt, updated] = [await summaryOf(attacker.userId), await summaryOf(victim.userId)];
    expect(rebuilt.outdated_since).toBeNull();
    expect(updated.outdated_since).toBeNull();
    // Each finished its update when it started its last turn: the victim's came before the rebuild's end.
    expect(updated.last_updated_date.getTime()).toBeLessThan(rebuilt.last_updated_date.getTime());
    // Ten readings of each hour count (five-minute CGM sent every 30 s), and the new one.
    expect(rebuilt.periods.periods['30d'].totalRecords).toBe(501);
    // The numbers are those of one full rebuild.
    await glucose.rebuildSummaries(world.scope(AS_SERVER), attacker.userId);
    expect((await summaryOf(attacker.userId)).periods).toEqual(rebuilt.periods);
  });

  it('keeps a summary outdated, with its place at the back of the queue, between the turns of its rebuild', async () => {
    const { userId, upload } = await accountWithDataset();
    await upload(readings(30, 100));
    const outdated = await summaryOf(userId);
    // One turn by hand, as the updater takes it.
    await world.orm.em.fork().transactional((tx) => updateSummary(tx, userId, 'cgm', { readings: 1_000 }));
    const between = await summaryOf(userId);
    expect(between.outdated_since).toEqual(outdated.outdated_since);
    expect(between.periods).toBeNull();
    expect(between.queued_at.getTime()).toBeGreaterThan(outdated.queued_at.getTime());
    await runUpdater();
    const done = await summaryOf(userId);
    expect(done.outdated_since).toBeNull();
    expect(done.queued_at).toBeNull();
    expect(done.periods.periods['30d'].totalRecords).toBe(300);
  });
});
