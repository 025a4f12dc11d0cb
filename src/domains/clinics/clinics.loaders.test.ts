import { describe, expect, it } from '@jest/globals';
import { useTestOrm } from '../../../test/support/test-orm';
import { AccessTrail } from '../../kernel/access-trail';
import { LoaderRegistry, type Scope } from '../../kernel/scope';
import { clinicLoader, patientTagsLoader } from './clinics.loaders';
import { callerRoles } from './membership';
import { insertClinicRow } from '../../../test/support/clinic-rows';

/**
 * A clinic's read brings the caller's roles in it and its patient tags: what nearly every request
 * on a clinic asks next is then answered without a statement of its own. The rows are taken away
 * after the clinic is read, so an answer that still holds them came from the read.
 */
const tested = useTestOrm();
const CLINIC = 'c1c1c1c1c1c1c1c1c1c1c1c1';

const scopeOf = (userId: string | null, isServer = false) =>
  ({
    principal: { userId, isServer, realm: 'dev1', clientId: 'test', scopes: [] },
    em: tested.orm.em.fork(),
    loaders: new LoaderRegistry(),
    accessTrail: new AccessTrail(null),
  }) as unknown as Scope;

async function seed(): Promise<void> {
  const { database } = tested;
  await database.query(`delete from clinics where id = $1`, [CLINIC]);
  await insertClinicRow(database, { id: CLINIC, name: 'Context Clinic', shareCode: 'CTXC-LINI-C001' });
  await database.query(
    `insert into clinicians (clinic_id, user_id, roles, created_time, updated_time)
     values ($1, 'admin00001', '{CLINIC_ADMIN}', now(), now())`,
    [CLINIC],
  );
  await database.query(
    `insert into patient_tags (id, clinic_id, name, created_time)
     values ('b2b2b2b2b2b2b2b2b2b2b2b2', $1, 'Newer', now()), ('a1a1a1a1a1a1a1a1a1a1a1a1', $1, 'Older', now() - interval '1 day')`,
    [CLINIC],
  );
}

async function takeAway(): Promise<void> {
  await tested.database.query('delete from clinicians where clinic_id = $1', [CLINIC]);
  await tested.database.query('delete from patient_tags where clinic_id = $1', [CLINIC]);
}

describe('a clinic’s read', () => {
  it('answers the caller’s roles and the clinic’s tags, oldest first, that the request asks next', async () => {
    await seed();
    const scope = scopeOf('admin00001');
    expect((await clinicLoader(scope).load(CLINIC))?.name).toBe('Context Clinic');
    await takeAway();
    expect(await callerRoles(scope, 'admin00001').load(CLINIC)).toEqual(['CLINIC_ADMIN']);
    expect(await patientTagsLoader(scope).load(CLINIC)).toEqual([
      { id: 'a1a1a1a1a1a1a1a1a1a1a1a1', name: 'Older' },
      { id: 'b2b2b2b2b2b2b2b2b2b2b2b2', name: 'Newer' },
    ]);
  });

  it('answers that a caller who is no clinician of it has no roles there', async () => {
    await seed();
    const scope = scopeOf('stranger01');
    await clinicLoader(scope).load(CLINIC);
    await tested.database.query(
      `insert into clinicians (clinic_id, user_id, roles, created_time, updated_time)
       values ($1, 'stranger01', '{CLINIC_MEMBER}', now(), now())`,
      [CLINIC],
    );
    expect(await callerRoles(scope, 'stranger01').load(CLINIC)).toBeNull();
    await takeAway();
  });

  it('leaves the roles to their own read when no user calls (a server token), and unknown clinics alone', async () => {
    await seed();
    const server = scopeOf(null, true);
    expect(await clinicLoader(server).load('d0d0d0d0d0d0d0d0d0d0d0d0')).toBeNull();
    await clinicLoader(server).load(CLINIC);
    // Read afterwards, a user's roles come from the database as it is now.
    await tested.database.query(`update clinicians set roles = '{CLINIC_MEMBER}' where clinic_id = $1`, [CLINIC]);
    expect(await callerRoles(server, 'admin00001').load(CLINIC)).toEqual(['CLINIC_MEMBER']);
    await takeAway();
  });
});
