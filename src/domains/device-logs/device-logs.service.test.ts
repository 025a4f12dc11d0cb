import { createHash } from 'node:crypto';
import { text } from 'node:stream/consumers';
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
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import type { DeviceLogsService } from './device-logs.service';

let world: DomainWorld;
let logs: DeviceLogsService;
let owner: string;
let custodian: string;
let uploader: string;
let viewer: string;
let noter: string;
let outsider: string;

beforeAll(async () => {
  world = await startDomainWorld();
  logs = world.services.deviceLogs;
  [owner, custodian, uploader, viewer, noter, outsider] = await Promise.all(
    [1, 2, 3, 4, 5, 6].map(() => world.account()),
  );
  await world.share(owner, custodian, ['custodian']);
  await world.share(owner, uploader, ['upload']);
  await world.share(owner, viewer, ['view']);
  await world.share(owner, noter, ['note']);
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);
const md5 = (body: string) => createHash('md5').update(body).digest('base64');
const entry = {
  type: 'send',
  managerIdentifier: 'manager',
  deviceIdentifier: 'pump-1',
  message: 'bolus 1.5',
  timestamp: '2026-03-01T10:00:00Z',
};
const LOG = JSON.stringify([entry]);
const at = (iso: string) => new Date(iso);
const MARCH = { startAtTime: at('2026-03-01T00:00:00Z'), endAtTime: at('2026-03-02T00:00:00Z') };
/** What the entry covers: inside MARCH. */
const MORNING = { startAtTime: at('2026-03-01T09:00:00Z'), endAtTime: at('2026-03-01T11:00:00Z') };

const upload = (
  principal: Principal,
  userId: string,
  { body = LOG, digest = md5(body), mediaType = 'application/json', window = MORNING } = {},
) => logs.upload(as(principal), userId, { digestMD5: digest, ...window, content: contentOf(body, mediaType) });

const listed = async (userId: string, window = { startAtTime: at('2000-01-01Z'), endAtTime: at('2100-01-01Z') }) =>
  (await logs.list(as(AS_SERVER), userId, window)).page.nodes.map((log) => log.id);

describe('who may upload a device log for an account', () => {
  it('the owner, its uploaders and custodians, and servers', async () => {
    for (const principal of [asUser(owner), asUser(uploader), asUser(custodian), AS_SERVER])
      expect(await upload(principal, owner)).toMatchObject({ userId: owner, size: LOG.length, revision: 1 });
  });

  it('not a viewer, a noter or an outsider (FORBIDDEN); an anonymous caller must authenticate', async () => {
    for (const principal of [asUser(viewer), asUser(noter), asUser(outsider), AS_CLIENT])
      expect(await outcomeOf(upload(principal, owner))).toBe('FORBIDDEN');
    expect(await outcomeOf(upload(ANONYMOUS, owner))).toBe('UNAUTHENTICATED');
  });

  it('a refused caller learns nothing about its upload: refused before its content is looked at', async () => {
    expect(await outcomeOf(upload(asUser(outsider), owner, { digest: 'bad', mediaType: 'text/plain' }))).toBe(
      'FORBIDDEN',
    );
  });

  it('a server uploading for an account that does not exist is told so', async () => {
    expect(await outcomeOf(upload(AS_SERVER, '0000000000'))).toBe('NOT_FOUND');
  });
});

describe('what a device log must be', () => {
  it('JSON, by its media type (parameters allowed), stored as application/json', async () => {
    const log = await upload(asUser(owner), owner, { mediaType: 'Application/JSON; charset=utf-8' });
    expect(log.mediaType).toBe('application/json');
    await expect(upload(asUser(owner), owner, { mediaType: 'text/plain' })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'mediaType' },
    });
  });

  it('an array of valid entries; the error names the entry and field, and nothing is stored', async () => {
    const user = await world.account();
    const wrong = JSON.stringify([entry, { ...entry, deviceIdentifier: '' }]);
    await expect(upload(asUser(user), user, { body: wrong })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: '[1].deviceIdentifier' },
    });
    for (const body of ['{"not":"an array"}', ''])
      expect(await outcomeOf(upload(asUser(user), user, { body }))).toBe('INVALID');
    expect(await listed(user)).toEqual([]);
    expect(await world.storedKeys(`device-logs/${user}/`)).toEqual([]);
  });

  it('bytes that match the digest sent; a mismatch stores nothing', async () => {
    const user = await world.account();
    expect(await outcomeOf(upload(asUser(user), user, { digest: md5('something else') }))).toBe('DIGEST_MISMATCH');
    expect(await listed(user)).toEqual([]);
    expect(await world.storedKeys(`device-logs/${user}/`)).toEqual([]);
  });

  it('a time window that does not end before it starts; a window of one instant is fine', async () => {
    const backwards = { startAtTime: MORNING.endAtTime, endAtTime: MORNING.startAtTime };
    await expect(upload(asUser(owner), owner, { window: backwards })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'startAtTime' },
    });
    const instant = { startAtTime: MORNING.startAtTime, endAtTime: MORNING.startAtTime };
    expect((await upload(asUser(owner), owner, { window: instant })).startAtTime).toEqual(MORNING.startAtTime);
  });
});

describe('who may read an account’s device logs', () => {
  let logId: string;
  beforeAll(async () => {
    logId = (await upload(asUser(owner), owner)).id;
  });

  it('the owner, its viewers and custodians, and servers', async () => {
    for (const principal of [asUser(owner), asUser(custodian), asUser(viewer), AS_SERVER]) {
      expect((await logs.get(as(principal), logId)).id).toBe(logId);
      expect(await text((await logs.openContent(as(principal), logId)).stream)).toBe(LOG);
      expect((await logs.list(as(principal), owner, MARCH)).page.nodes.map((log) => log.id)).toContain(logId);
    }
  });

  it('an uploader, a noter or an outsider is refused the record and the list, and told the bytes do not exist', async () => {
    for (const principal of [asUser(uploader), asUser(noter), asUser(outsider)]) {
      expect(await outcomeOf(logs.get(as(principal), logId))).toBe('FORBIDDEN');
      expect(await outcomeOf(logs.list(as(principal), owner, MARCH))).toBe('FORBIDDEN');
      expect(await outcomeOf(logs.openContent(as(principal), logId))).toBe('NOT_FOUND');
    }
    expect(await outcomeOf(logs.get(as(ANONYMOUS), logId))).toBe('UNAUTHENTICATED');
  });

  it('logs the outsider’s refused look at the bytes on the owner’s account, naming the log', async () => {
    const scope = as(asUser(outsider));
    await outcomeOf(logs.openContent(scope, logId));
    expect(await scope.decisions()).toEqual([
      expect.objectContaining({ subjectId: owner, outcome: 'REFUSED', objectIds: [logId] }),
    ]);
  });

  it('a caller who may not read finds an empty list among many, not an error', async () => {
    const { page, count } = await logs.listOf(as(asUser(outsider)), owner, MARCH);
    expect([page.nodes, await count()]).toEqual([[], 0]);
  });

  it('an id that names no log is NOT_FOUND, one that is no id INVALID', async () => {
    expect(await outcomeOf(logs.get(as(asUser(owner)), 'b'.repeat(32)))).toBe('NOT_FOUND');
    await expect(logs.get(as(asUser(owner)), 'short')).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'id' },
    });
  });
});

describe('listing device logs in a window', () => {
  it('lists logs starting at or after its start and ending before its end, newest upload first', async () => {
    const user = await world.account();
    const window = (start: string, end: string) => ({ window: { startAtTime: at(start), endAtTime: at(end) } });
    const inside = await upload(asUser(user), user, window('2026-03-01T00:00:00Z', '2026-03-01T12:00:00Z'));
    const later = await upload(asUser(user), user, window('2026-03-01T06:00:00Z', '2026-03-01T23:00:00Z'));
    await upload(asUser(user), user, window('2026-02-28T23:00:00Z', '2026-03-01T01:00:00Z'));
    await upload(asUser(user), user, window('2026-03-01T20:00:00Z', '2026-03-02T00:00:00Z'));
    expect(await listed(user, MARCH)).toEqual([later.id, inside.id]);
    await expect(
      logs.list(as(AS_SERVER), user, { startAtTime: MARCH.endAtTime, endAtTime: MARCH.startAtTime }),
    ).rejects.toMatchObject({ code: 'INVALID', details: { field: 'startAtTime' } });
  });
});

describe('an account going away', () => {
  it('takes its logs’ records at once and their bytes once the deletion commits', async () => {
    const [user, neighbour] = [await world.account(), await world.account()];
    await upload(asUser(user), user);
    const kept = await upload(asUser(neighbour), neighbour);
    const scope = as(AS_SERVER);
    const afterCommit = await scope.em.transactional((tx) => logs.forgetUser({ ...scope, em: tx }, user));
    expect(await listed(user)).toEqual([]);
    await afterCommit();
    expect(await world.storedKeys(`device-logs/${user}/`)).toEqual([]);
    expect(await world.storedKeys(`device-logs/${neighbour}/`)).toEqual([kept.objectKey]);
  });
});
