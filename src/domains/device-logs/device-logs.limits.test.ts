import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asUser, contentOf, startDomainWorld, type DomainWorld } from '../../../test/support/domain-services';
import type { DeviceLogsService } from './device-logs.service';

/** Issue 27, item 8: an account could upload device logs without bound. */
const QUOTA = 2;
const LOG = JSON.stringify([
  { type: 'send', managerIdentifier: 'm', deviceIdentifier: 'd', message: 'x', timestamp: '2026-03-01T10:00:00Z' },
]);
const WINDOW = { startAtTime: new Date('2026-03-01T09:00:00Z'), endAtTime: new Date('2026-03-01T11:00:00Z') };

let world: DomainWorld;
let logs: DeviceLogsService;

beforeAll(async () => {
  world = await startDomainWorld({ DEVICE_LOG_QUOTA: String(QUOTA) });
  logs = world.services.deviceLogs;
});
afterAll(() => world?.stop());

const upload = (userId: string) =>
  logs.upload(world.scope(asUser(userId)), userId, {
    digestMD5: createHash('md5').update(LOG).digest('base64'),
    ...WINDOW,
    content: contentOf(LOG, 'application/json'),
  });

describe('the device log quota', () => {
  it('refuses a log past the quota, naming the quota and its value, and keeps none of its bytes', async () => {
    const owner = await world.account();
    await upload(owner);
    await upload(owner);
    await expect(upload(owner)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining(`holds ${QUOTA} device logs, its quota`),
      details: { quota: 'deviceLogs', limit: QUOTA },
    });
    expect(await world.storedKeys(`device-logs/${owner}/`)).toHaveLength(QUOTA);
  });

  it('holds when uploads race at the quota, and counts per account', async () => {
    const [owner, other] = [await world.account(), await world.account()];
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => upload(owner)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(QUOTA);
    const held = await world.database.query('select count(*)::int as count from device_logs where user_id = $1', [
      owner,
    ]);
    expect(held[0]!.count).toBe(QUOTA);
    expect(await upload(other)).toMatchObject({ userId: other });
  });
});
