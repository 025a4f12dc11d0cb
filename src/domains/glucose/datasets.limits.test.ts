import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AS_SERVER, asUser, startDomainWorld, type DomainWorld } from '../../../test/support/domain-services';
import type { GlucoseService } from './glucose.service';

/** Issue 27, item 8: an account could open datasets without bound, and deep pages read the whole list. */
const QUOTA = 3;

let world: DomainWorld;
let glucose: GlucoseService;

beforeAll(async () => {
  world = await startDomainWorld({ DATASET_QUOTA: String(QUOTA) });
  glucose = world.services.glucose;
});
afterAll(() => world?.stop());

const open = (userId: string) => glucose.createDataset(world.scope(asUser(userId)), userId, { dataSetType: 'normal' });

describe('the dataset quota', () => {
  it('refuses a dataset past the quota, open or closed, naming the quota and its value', async () => {
    const owner = await world.account();
    const first = await open(owner);
    await glucose.closeDataset(world.scope(asUser(owner)), first.id);
    await open(owner);
    await open(owner);
    await expect(open(owner)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining(`holds ${QUOTA} datasets, its quota`),
      details: { quota: 'datasets', limit: QUOTA },
    });
  });

  it('holds when creations race at the quota, and a deleted dataset makes room', async () => {
    const owner = await world.account();
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => open(owner)));
    const made = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(made).toHaveLength(QUOTA);
    await glucose.deleteDataset(world.scope(asUser(owner)), made[0]!.value.id);
    expect((await open(owner)).userId).toBe(owner);
  });
});

describe('an offset page of datasets', () => {
  it('holds the rows at its place in the whole list', async () => {
    const owner = await world.account();
    for (let index = 0; index < QUOTA; index++) await open(owner);
    const list = (paging: { first?: number; offset?: number }) =>
      glucose.datasets(world.scope(AS_SERVER), owner, paging);
    const whole = (await list({})).page.nodes.map((dataset) => dataset.id);
    const deep = (await list({ first: 2, offset: 1 })).page;
    expect(deep.nodes.map((dataset) => dataset.id)).toEqual(whole.slice(1, 3));
    expect(deep).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
  });
});
