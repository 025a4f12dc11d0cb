import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_SERVER,
  asUser,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import type { PatientInvitesService } from './patient-invites.service';
import { MAY_READ_DATA } from '../permissions/access-policy';

let world: DomainWorld;
let invites: PatientInvitesService;

beforeAll(async () => {
  world = await startDomainWorld();
  invites = world.services.patientInvites;
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);

/** A clinic (created by its admin) with a member and a prescriber, and a user who is not yet its patient. */
async function clinicOf() {
  const [{ clinic, ...staff }, user] = await Promise.all([world.staffedClinic(), world.account()]);
  return { clinicId: clinic.id, shareCode: clinic.shareCode, user, ...staff };
}

describe('a user inviting a clinic', () => {
  it('finds the clinic by its share code in any letter case, and the clinic sees the pending invitation', async () => {
    const { clinicId, shareCode, member, user } = await clinicOf();
    const invite = await invites.invite(as(asUser(user)), user, ` ${shareCode.toLowerCase()} `, ['view', 'upload']);
    expect(invite).toMatchObject({ clinicId, userId: user, permissions: ['view', 'upload'] });
    expect((await invites.ofClinic(as(asUser(member)), clinicId)).map((pending) => pending.id)).toEqual([invite.id]);
    expect((await invites.ofUser(as(asUser(user)), user)).map((pending) => pending.id)).toEqual([invite.id]);
  });

  it('does it for itself, or a server for it; nobody else may, and anonymous callers must log in', async () => {
    const { shareCode, user, outsider } = await clinicOf();
    expect(await outcomeOf(invites.invite(as(asUser(outsider)), user, shareCode, ['view']))).toBe('FORBIDDEN');
    expect(await outcomeOf(invites.invite(as(ANONYMOUS), user, shareCode, ['view']))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(invites.invite(as(AS_SERVER), user, shareCode, ['view']))).toBe('ok');
    expect(await outcomeOf(invites.ofUser(as(asUser(outsider)), user))).toBe('FORBIDDEN');
  });

  it('offers the clinic view, upload and note, each once, never custody', async () => {
    const { shareCode, user } = await clinicOf();
    for (const permissions of [['custodian'], [], ['view', 'view'], ['root']])
      await expect(invites.invite(as(asUser(user)), user, shareCode, permissions)).rejects.toMatchObject({
        code: 'INVALID',
        details: { field: 'permissions' },
      });
  });

  it('once: a second invitation while one is pending, or once a patient, is a CONFLICT', async () => {
    const { clinicId, shareCode, member, user } = await clinicOf();
    const invite = await invites.invite(as(asUser(user)), user, shareCode, ['view']);
    expect(await outcomeOf(invites.invite(as(asUser(user)), user, shareCode, ['note']))).toBe('CONFLICT');
    await invites.accept(as(asUser(member)), clinicId, invite.id, {});
    expect(await outcomeOf(invites.invite(as(asUser(user)), user, shareCode, ['view']))).toBe('CONFLICT');
  });

  it('a server cannot invite a clinic for an account that does not exist (NOT_FOUND), as it cannot add one', async () => {
    const { clinicId, shareCode, member } = await clinicOf();
    const nobody = '0000000000';
    expect(await outcomeOf(invites.invite(as(AS_SERVER), nobody, shareCode, ['view']))).toBe('NOT_FOUND');
    expect(await invites.ofClinic(as(asUser(member)), clinicId)).toEqual([]);
  });

  it('a share code no clinic has is NOT_FOUND', async () => {
    const { user } = await clinicOf();
    expect(await outcomeOf(invites.invite(as(asUser(user)), user, 'AAAA-BBBB-CCCC', ['view']))).toBe('NOT_FOUND');
    expect(await outcomeOf(invites.invite(as(asUser(user)), user, 'not a code', ['view']))).toBe('NOT_FOUND');
  });
});

describe('the clinic answering', () => {
  it('a member accepts: the user becomes its patient, and its clinicians hold what the user offered', async () => {
    const { clinicId, shareCode, member, prescriber, user } = await clinicOf();
    const invite = await invites.invite(as(asUser(user)), user, shareCode, ['view']);
    const patient = await invites.accept(as(asUser(member)), clinicId, invite.id, { fullName: 'Pat Ient' });
    expect(patient).toMatchObject({ fullName: 'Pat Ient', permissions: ['view'] });
    expect(await invites.ofClinic(as(asUser(member)), clinicId)).toEqual([]);
    const access = world.services.access;
    expect(await access.isAllowed(as(asUser(prescriber)), user, MAY_READ_DATA)).toBe(true);
    expect(await access.isAllowed(as(asUser(prescriber)), user, ['upload'])).toBe(false);
  });

  it('a prescriber alone, an outsider or the inviting user may not accept; an accepted invitation is gone', async () => {
    const { clinicId, shareCode, admin, prescriber, user, outsider } = await clinicOf();
    const invite = await invites.invite(as(asUser(user)), user, shareCode, ['view']);
    for (const caller of [prescriber, outsider, user])
      expect(await outcomeOf(invites.accept(as(asUser(caller)), clinicId, invite.id, {}))).toBe('FORBIDDEN');
    expect(await outcomeOf(invites.ofClinic(as(asUser(prescriber)), clinicId))).toBe('FORBIDDEN');
    await invites.accept(as(asUser(admin)), clinicId, invite.id, {});
    expect(await outcomeOf(invites.accept(as(asUser(admin)), clinicId, invite.id, {}))).toBe('NOT_FOUND');
  });

  it('an invitation to another clinic cannot be accepted through this one', async () => {
    const here = await clinicOf();
    const there = await clinicOf();
    const invite = await invites.invite(as(asUser(there.user)), there.user, there.shareCode, ['view']);
    expect(await outcomeOf(invites.accept(as(asUser(here.member)), here.clinicId, invite.id, {}))).toBe('NOT_FOUND');
    expect(await invites.ofClinic(as(asUser(there.member)), there.clinicId)).toHaveLength(1);
  });
});

describe('withdrawing an invitation', () => {
  it('the inviting user revokes it, or the clinic declines it; either way it is gone', async () => {
    const { clinicId, shareCode, member, user } = await clinicOf();
    const revoked = await invites.invite(as(asUser(user)), user, shareCode, ['view']);
    expect(await invites.revoke(as(asUser(user)), clinicId, revoked.id)).toMatchObject({ id: revoked.id });
    const declined = await invites.invite(as(asUser(user)), user, shareCode, ['view']);
    await invites.revoke(as(asUser(member)), clinicId, declined.id);
    expect(await invites.ofUser(as(asUser(user)), user)).toEqual([]);
  });

  it('anyone else is refused without learning whether the invitation exists', async () => {
    const { clinicId, shareCode, member, prescriber, user, outsider } = await clinicOf();
    const invite = await invites.invite(as(asUser(user)), user, shareCode, ['view']);
    const unknown = 'd'.repeat(24);
    for (const caller of [outsider, prescriber]) {
      expect(await outcomeOf(invites.revoke(as(asUser(caller)), clinicId, invite.id))).toBe('FORBIDDEN');
      expect(await outcomeOf(invites.revoke(as(asUser(caller)), clinicId, unknown))).toBe('FORBIDDEN');
    }
    expect(await outcomeOf(invites.revoke(as(asUser(member)), clinicId, unknown))).toBe('NOT_FOUND');
    expect(await outcomeOf(invites.revoke(as(ANONYMOUS), clinicId, invite.id))).toBe('UNAUTHENTICATED');
    expect(await invites.ofUser(as(asUser(user)), user)).toHaveLength(1);
  });
});

describe('an inviting user’s account going away', () => {
  it('takes its pending invitations with it', async () => {
    const { clinicId, shareCode, member, user } = await clinicOf();
    await invites.invite(as(asUser(user)), user, shareCode, ['view']);
    await world.services.lifecycle.delete(as(AS_SERVER), user, undefined);
    expect(await invites.ofClinic(as(asUser(member)), clinicId)).toEqual([]);
  });
});
