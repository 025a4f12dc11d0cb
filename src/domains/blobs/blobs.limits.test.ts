import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_SERVER,
  asUser,
  contentOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import type { BlobsService } from './blobs.service';

/** Issue 27, item 8: an account could create blobs without bound, and deep pages read the whole list. */
const QUOTA = 3;

let world: DomainWorld;
let blobs: BlobsService;

beforeAll(async () => {
  world = await startDomainWorld({ BLOB_QUOTA: String(QUOTA) });
  blobs = world.services.blobs;
});
afterAll(() => world?.stop());

const withContent = (userId: string) =>
  blobs.create(world.scope(asUser(userId)), userId, { mediaType: 'text/plain', content: contentOf('bytes') });
const withoutContent = (userId: string) =>
  blobs.create(world.scope(asUser(userId)), userId, { mediaType: 'text/plain' });
const heldBy = async (userId: string) =>
  (await world.database.query('select count(*)::int as count from blobs where user_id = $1', [userId]))[0]
    .count as number;

describe('the blob quota', () => {
  it('refuses a blob past the quota, with or without content, naming the quota and its value', async () => {
    const owner = await world.account();
    await withContent(owner);
    await withoutContent(owner);
    await withContent(owner);
    const refusal = { code: 'FORBIDDEN', details: { quota: 'blobs', limit: QUOTA } };
    await expect(withContent(owner)).rejects.toMatchObject(refusal);
    await expect(withoutContent(owner)).rejects.toThrow(`The account holds ${QUOTA} blobs, its quota`);
    expect(await heldBy(owner)).toBe(QUOTA);
    expect(await world.storedKeys(`blobs/${owner}/`)).toHaveLength(2);
  });

  it('counts per account, and a deleted blob makes room again', async () => {
    const [owner, other] = [await world.account(), await world.account()];
    const made = [await withContent(owner), await withContent(owner), await withContent(owner)];
    expect((await withContent(other)).status).toBe('available');
    await blobs.delete(world.scope(asUser(owner)), made[0]!.id);
    expect((await withoutContent(owner)).status).toBe('created');
  });

  it('holds when creations race at the quota: at most the quota of blobs exist', async () => {
    const owner = await world.account();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, index) => (index % 2 ? withContent(owner) : withoutContent(owner))),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(QUOTA);
    for (const outcome of outcomes.filter((outcome) => outcome.status === 'rejected'))
      expect(outcome.reason).toMatchObject({ code: 'FORBIDDEN' });
    expect(await heldBy(owner)).toBe(QUOTA);
  });
});

describe('an offset page of blobs', () => {
  it('holds the rows at its place in the whole list, and says rows precede it', async () => {
    const owner = await world.account();
    for (let index = 0; index < QUOTA; index++) await withContent(owner);
    const list = (options: { first?: number; offset?: number }) => blobs.list(world.scope(AS_SERVER), owner, options);
    const whole = (await list({})).page.nodes.map((blob) => blob.id);
    const deep = (await list({ first: 1, offset: 2 })).page;
    expect(deep.nodes.map((blob) => blob.id)).toEqual(whole.slice(2, 3));
    expect(deep).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    expect((await list({ first: 1, offset: 1 })).page.hasNextPage).toBe(true);
    expect((await list({ offset: QUOTA })).page.nodes).toEqual([]);
  });

  it('refuses a negative offset, naming it', async () => {
    const owner = await world.account();
    await expect(blobs.list(world.scope(AS_SERVER), owner, { offset: -1 })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'offset' },
    });
  });
});
