import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asUser, startDomainWorld, type DomainWorld } from '../../../test/support/domain-services';
import type { ClinicFields } from './clinic-fields';

/** Issue 27, item 8: an account could create clinics without bound. */
const QUOTA = 2;
const FIELDS: ClinicFields = { name: 'Sunny Clinic', preferredBgUnits: 'MG_DL' };

let world: DomainWorld;

beforeAll(async () => {
  world = await startDomainWorld({ CLINIC_QUOTA: String(QUOTA) });
});
afterAll(() => world?.stop());

const create = (userId: string) => world.services.clinics.create(world.scope(asUser(userId)), FIELDS);

describe('the clinic quota', () => {
  it('refuses a clinic to a user who is a clinician of its quota of clinics, naming the quota and its value', async () => {
    const creator = await world.account();
    await create(creator);
    await world.clinic({ clinicianId: creator, roles: ['CLINIC_MEMBER'] });
    await expect(create(creator)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining(`holds ${QUOTA} clinic memberships, its quota`),
      details: { quota: 'clinics', limit: QUOTA },
    });
    expect((await create(await world.account())).name).toBe(FIELDS.name);
  });

  it('holds when creations race at the quota', async () => {
    const creator = await world.account();
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => create(creator)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(QUOTA);
    const held = await world.database.query('select count(*)::int as count from clinicians where user_id = $1', [
      creator,
    ]);
    expect(held[0]!.count).toBe(QUOTA);
  });
});
