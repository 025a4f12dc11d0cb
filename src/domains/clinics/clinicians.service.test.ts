import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_CLIENT,
  AS_SERVER,
  asUser,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { hexId } from '../../kernel/ids';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import type { CliniciansService } from './clinicians.service';

let world: DomainWorld;
let clinicians: CliniciansService;

beforeAll(async () => {
  world = await startDomainWorld();
  clinicians = world.services.clinicians;
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);
const email = () => `${hexId(8)}@example.org`;

/** A clinic created by its admin, with a member and a prescriber added by a server. */
async function clinicOf() {
  const { clinic, ...staff } = await world.staffedClinic({ name: 'Sunny Clinic', preferredBgUnits: 'MMOL_L' });
  return { clinicId: clinic.id, ...staff };
}
/** An account whose address is verified (as an accepted sign-up confirmation leaves it). */
async function verifiedAccount(address: string) {
  const userId = await world.account({ email: address });
  await world.services.users.update(as(AS_SERVER), userId, { emailVerified: true });
  return userId;
}
const rolesOf = async (clinicId: string, userId: string) =>
  (await clinicians.get(as(AS_SERVER), clinicId, userId)).roles;

describe('who may see a clinic’s clinicians', () => {
  it('its members, its admins and servers list them all, invitations included', async () => {
    const { clinicId, admin, member, prescriber } = await clinicOf();
    await clinicians.invite(as(asUser(admin)), clinicId, { email: email(), roles: ['CLINIC_MEMBER'] });
    for (const reader of [asUser(member), asUser(admin), AS_SERVER]) {
      const { page, count } = await clinicians.list(as(reader), clinicId, {});
      const members = page.nodes.flatMap((clinician) => (clinician.userId ? [clinician.userId] : []));
      expect(members.sort()).toEqual([admin, member, prescriber].sort());
      expect(page.nodes.filter((clinician) => clinician.inviteId !== null)).toHaveLength(1);
      expect(await count()).toBe(4);
    }
  });

  it('not a prescriber alone, an outsider nor a client without an account; anonymous callers must log in', async () => {
    const { clinicId, prescriber, outsider } = await clinicOf();
    for (const reader of [asUser(prescriber), asUser(outsider), AS_CLIENT])
      expect(await outcomeOf(clinicians.list(as(reader), clinicId, {}))).toBe('FORBIDDEN');
    expect(await outcomeOf(clinicians.list(as(ANONYMOUS), clinicId, {}))).toBe('UNAUTHENTICATED');
  });

  it('a clinician may always read its own membership; an unknown clinic is NOT_FOUND to anyone', async () => {
    const { clinicId, prescriber, outsider } = await clinicOf();
    expect(await rolesOf(clinicId, prescriber)).toEqual(['PRESCRIBER']);
    expect((await clinicians.get(as(asUser(prescriber)), clinicId, prescriber)).userId).toBe(prescriber);
    expect(await outcomeOf(clinicians.get(as(asUser(outsider)), clinicId, outsider))).toBe('NOT_FOUND');
    expect(await outcomeOf(clinicians.list(as(asUser(outsider)), 'f'.repeat(24), {}))).toBe('NOT_FOUND');
  });
});

describe('adding clinicians directly', () => {
  it('is for servers only, for accounts that exist, once', async () => {
    const { clinicId, admin, member } = await clinicOf();
    const input = { userId: await world.account(), email: email(), roles: ['CLINIC_MEMBER'] };
    expect(await outcomeOf(clinicians.create(as(asUser(admin)), clinicId, input))).toBe('FORBIDDEN');
    expect(await outcomeOf(clinicians.create(as(AS_SERVER), clinicId, { ...input, userId: '0000000000' }))).toBe(
      'NOT_FOUND',
    );
    expect(await outcomeOf(clinicians.create(as(AS_SERVER), clinicId, { ...input, userId: member }))).toBe('CONFLICT');
    await expect(clinicians.create(as(AS_SERVER), clinicId, { ...input, roles: [] })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'roles' },
    });
  });
});

describe('changing roles and leaving', () => {
  it('an admin changes a member’s roles; a member may not, not even its own', async () => {
    const { clinicId, admin, member } = await clinicOf();
    const promoted = await clinicians.update(as(asUser(admin)), clinicId, member, { roles: ['CLINIC_ADMIN'] });
    expect(promoted.roles).toEqual(['CLINIC_ADMIN']);
    const other = await clinicOf();
    const promote = { roles: ['CLINIC_ADMIN'] };
    expect(await outcomeOf(clinicians.update(as(asUser(other.member)), other.clinicId, other.member, promote))).toBe(
      'FORBIDDEN',
    );
    expect(await rolesOf(other.clinicId, other.member)).toEqual(['CLINIC_MEMBER']);
  });

  it('a new role counts from the next request: a member made admin may then manage the clinic', async () => {
    const { clinicId, admin, member, prescriber } = await clinicOf();
    await clinicians.update(as(asUser(admin)), clinicId, member, { roles: ['CLINIC_ADMIN', 'CLINIC_MEMBER'] });
    expect(
      await outcomeOf(clinicians.update(as(asUser(member)), clinicId, prescriber, { roles: ['CLINIC_MEMBER'] })),
    ).toBe('ok');
  });

  it('the last admin may be neither demoted nor removed (CONFLICT), once there is another it may', async () => {
    const { clinicId, admin, member } = await clinicOf();
    expect(await outcomeOf(clinicians.update(as(asUser(admin)), clinicId, admin, { roles: ['CLINIC_MEMBER'] }))).toBe(
      'CONFLICT',
    );
    expect(await outcomeOf(clinicians.remove(as(asUser(admin)), clinicId, admin))).toBe('CONFLICT');
    await clinicians.update(as(asUser(admin)), clinicId, member, { roles: ['CLINIC_ADMIN'] });
    await clinicians.remove(as(asUser(admin)), clinicId, admin);
    expect(await outcomeOf(clinicians.get(as(AS_SERVER), clinicId, admin))).toBe('NOT_FOUND');
  });

  it('a member may leave on its own; removing others takes an admin', async () => {
    const { clinicId, member, prescriber } = await clinicOf();
    expect(await outcomeOf(clinicians.remove(as(asUser(member)), clinicId, prescriber))).toBe('FORBIDDEN');
    await clinicians.remove(as(asUser(member)), clinicId, member);
    expect(await outcomeOf(clinicians.list(as(asUser(member)), clinicId, {}))).toBe('FORBIDDEN');
  });
});

describe('invitations', () => {
  it('an admin invites an address; its verified owner sees it, accepts it and becomes a member with its roles', async () => {
    const { clinicId, admin } = await clinicOf();
    const address = email();
    const invitee = await verifiedAccount(address);
    const invite = await clinicians.invite(as(asUser(admin)), clinicId, {
      email: address.toUpperCase(),
      roles: ['CLINIC_MEMBER', 'PRESCRIBER'],
    });
    expect(invite).toMatchObject({ email: address, userId: null });
    const { page } = await clinicians.invitesFor(as(asUser(invitee)), invitee);
    expect(page.nodes.map((offer) => offer.inviteId)).toEqual([invite.inviteId]);
    const joined = await clinicians.acceptInvite(as(asUser(invitee)), invitee, invite.inviteId!);
    expect(joined).toMatchObject({ clinicId, userId: invitee, roles: ['CLINIC_MEMBER', 'PRESCRIBER'] });
    expect((await clinicians.invitesFor(as(asUser(invitee)), invitee)).page.nodes).toEqual([]);
    expect(await outcomeOf(clinicians.list(as(asUser(invitee)), clinicId, {}))).toBe('ok');
  });

  it('only admins and servers invite; an address already a member or already invited is a CONFLICT', async () => {
    const { clinicId, admin, member } = await clinicOf();
    const address = email();
    expect(
      await outcomeOf(clinicians.invite(as(asUser(member)), clinicId, { email: address, roles: ['CLINIC_MEMBER'] })),
    ).toBe('FORBIDDEN');
    await clinicians.invite(as(AS_SERVER), clinicId, { email: address, roles: ['CLINIC_MEMBER'] });
    expect(
      await outcomeOf(clinicians.invite(as(asUser(admin)), clinicId, { email: address, roles: ['PRESCRIBER'] })),
    ).toBe('CONFLICT');
    const memberAddress = (await clinicians.get(as(AS_SERVER), clinicId, member)).email!;
    expect(
      await outcomeOf(clinicians.invite(as(asUser(admin)), clinicId, { email: memberAddress, roles: ['PRESCRIBER'] })),
    ).toBe('CONFLICT');
  });

  it('an invitation addressed to someone else does not exist for a user, and a user sees only its own', async () => {
    const { clinicId, admin, outsider } = await clinicOf();
    const address = email();
    const invitee = await world.account({ email: address });
    const invite = await clinicians.invite(as(asUser(admin)), clinicId, { email: address, roles: ['CLINIC_MEMBER'] });
    expect(await outcomeOf(clinicians.acceptInvite(as(asUser(outsider)), outsider, invite.inviteId!))).toBe(
      'NOT_FOUND',
    );
    expect(await outcomeOf(clinicians.invitesFor(as(asUser(outsider)), invitee))).toBe('FORBIDDEN');
    expect(await outcomeOf(clinicians.acceptInvite(as(asUser(outsider)), invitee, invite.inviteId!))).toBe('FORBIDDEN');
  });

  it('a revoked or declined invitation can no longer be accepted', async () => {
    const { clinicId, admin } = await clinicOf();
    const [revokedTo, declinedTo] = [email(), email()];
    const [revokedFor, declinedFor] = [await verifiedAccount(revokedTo), await verifiedAccount(declinedTo)];
    const revoked = await clinicians.invite(as(asUser(admin)), clinicId, {
      email: revokedTo,
      roles: ['CLINIC_MEMBER'],
    });
    const declined = await clinicians.invite(as(asUser(admin)), clinicId, {
      email: declinedTo,
      roles: ['CLINIC_MEMBER'],
    });
    await clinicians.revokeInvite(as(asUser(admin)), clinicId, revoked.inviteId!);
    await clinicians.declineInvite(as(asUser(declinedFor)), declinedFor, declined.inviteId!);
    expect(await outcomeOf(clinicians.acceptInvite(as(asUser(revokedFor)), revokedFor, revoked.inviteId!))).toBe(
      'NOT_FOUND',
    );
    expect(await outcomeOf(clinicians.acceptInvite(as(asUser(declinedFor)), declinedFor, declined.inviteId!))).toBe(
      'NOT_FOUND',
    );
  });
});

describe('invitations sent before an address became the account’s', () => {
  /** An invitation to a fresh address that an account (registered meanwhile) then adds to its emails. */
  async function claimedLater() {
    const { clinicId, admin } = await clinicOf();
    const address = email();
    const claimer = await world.account();
    const invite = await clinicians.invite(as(asUser(admin)), clinicId, { email: address, roles: ['CLINIC_ADMIN'] });
    const own = (await world.services.users.addressesOf(world.orm.em.fork(), claimer)).map((row) => row.email);
    await world.services.users.update(as(AS_SERVER), claimer, { emails: [...own, address] });
    return { clinicId, admin, address, claimer, inviteId: invite.inviteId! };
  }

  it('are neither listed to it nor answered by it', async () => {
    const { clinicId, claimer, inviteId } = await claimedLater();
    const { page, count } = await clinicians.invitesFor(as(asUser(claimer)), claimer);
    expect(page.nodes).toEqual([]);
    expect(await count()).toBe(0);
    const scope = as(asUser(claimer));
    expect(await outcomeOf(clinicians.acceptInvite(scope, claimer, inviteId))).toBe('NOT_FOUND');
    expect(await outcomeOf(clinicians.declineInvite(scope, claimer, inviteId))).toBe('NOT_FOUND');
    expect(await outcomeOf(clinicians.get(as(AS_SERVER), clinicId, claimer))).toBe('NOT_FOUND');
  });

  it('stay for their invitee when the account that added the address goes away', async () => {
    const { clinicId, admin, claimer, inviteId } = await claimedLater();
    await world.services.lifecycle.delete(as(AS_SERVER), claimer, undefined);
    expect((await clinicians.getInvite(as(asUser(admin)), clinicId, inviteId)).inviteId).toBe(inviteId);
  });

  it('an address held unverified when the invitation was sent lists it; answering it takes the address verified', async () => {
    const { clinicId, admin } = await clinicOf();
    const address = email();
    const holder = await world.account();
    const own = (await world.services.users.addressesOf(world.orm.em.fork(), holder)).map((row) => row.email);
    await world.services.users.update(as(AS_SERVER), holder, { emails: [...own, address] });
    const invite = await clinicians.invite(as(asUser(admin)), clinicId, { email: address, roles: ['CLINIC_MEMBER'] });
    expect((await clinicians.invitesFor(as(asUser(holder)), holder)).page.nodes).toHaveLength(1);
    const scope = as(asUser(holder));
    expect(await outcomeOf(clinicians.acceptInvite(scope, holder, invite.inviteId!))).toBe('FORBIDDEN');
    expect(await outcomeOf(clinicians.declineInvite(scope, holder, invite.inviteId!))).toBe('FORBIDDEN');
    expect(await outcomeOf(clinicians.get(as(AS_SERVER), clinicId, holder))).toBe('NOT_FOUND');
  });

  it('a key that is not the invitation’s own is refused, whoever presents it', async () => {
    const { clinicId, admin, outsider } = await clinicOf();
    const invite = await clinicians.invite(as(asUser(admin)), clinicId, { email: email(), roles: ['CLINIC_MEMBER'] });
    const scope = as(asUser(outsider));
    for (const key of ['A'.repeat(32), 'not-a-key'])
      expect(await outcomeOf(clinicians.acceptInvite(scope, outsider, invite.inviteId!, key))).toBe('NOT_FOUND');
    expect((await clinicians.getInvite(as(asUser(admin)), clinicId, invite.inviteId!)).inviteId).toBe(invite.inviteId);
  });
});

describe('a clinician’s account going away', () => {
  it('when it was the last admin, the clinician who joined first among those left becomes admin', async () => {
    const { clinicId, admin, member, prescriber } = await clinicOf();
    const joined = (userId: string, interval: string) =>
      world.database.query(
        `update clinicians set created_time = now() - $1::interval where clinic_id = $2 and user_id = $3`,
        [interval, clinicId, userId],
      );
    await joined(prescriber, '1 hour');
    await joined(member, '1 day');
    await world.services.lifecycle.delete(as(AS_SERVER), admin, undefined);
    expect(await rolesOf(clinicId, member)).toEqual(['CLINIC_ADMIN', 'CLINIC_MEMBER']);
    expect(await rolesOf(clinicId, prescriber)).toEqual(['PRESCRIBER']);
  });

  it('takes the invitations to its addresses with it', async () => {
    const { clinicId, admin } = await clinicOf();
    const address = email();
    const invitee = await world.account({ email: address });
    await clinicians.invite(as(asUser(admin)), clinicId, { email: address, roles: ['CLINIC_MEMBER'] });
    await world.services.lifecycle.delete(as(AS_SERVER), invitee, undefined);
    const { page } = await clinicians.list(as(asUser(admin)), clinicId, {});
    expect(page.nodes.map((clinician) => clinician.email)).not.toContain(address);
  });
});
