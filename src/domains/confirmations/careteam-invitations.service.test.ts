import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_SERVER,
  asUser,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { recordedOutbox } from '../../../test/support/recorded-mail';
import { hexId } from '../../kernel/ids';
import { ANONYMOUS } from '../../kernel/principal';
import { CareTeamInvitationsService, checkOffered } from './careteam-invitations.service';
import { ConfirmationStore } from './confirmations.store';
import { verifiedAddresses } from './invitee-accounts';

let world: DomainWorld;
let invitations: CareTeamInvitationsService;
const outbox = recordedOutbox({ perAddress: 100, perSource: 1000 });

beforeAll(async () => {
  world = await startDomainWorld();
  const { users, permissions, access } = world.services;
  const store = new ConfirmationStore(outbox.queue, { signup: 3600, passwordReset: 600, invitation: 3600 });
  invitations = new CareTeamInvitationsService(
    store,
    access,
    {
      held: (scope, granteeId, sharerId) => access.heldBy(scope, granteeId, sharerId),
      grant: (tx, sharerId, granteeId, offer) =>
        permissions.grantInvited(tx, sharerId, granteeId, offer.permissions, {
          clinicId: offer.clinicId,
          grantedBy: offer.sentBy,
        }),
    },
    {
      verifiedAddresses: async (em, userId) => {
        const account = await users.findById(em, userId);
        return account && verifiedAddresses(account);
      },
      holderOf: async (em, email) => (await users.findByEmail(em, email))?.id ?? null,
    },
    'https://islet.test',
  );
}, 30_000);
afterAll(() => world?.stop());

const as = (userId: string) => world.scope(asUser(userId));
const address = () => `${hexId(8)}@example.org`;
const keyMailedTo = (to: string) =>
  outbox.keysIn(to, /^https:\/\/islet\.test\/confirm\/invite\?invitedBy=\w+&key=(\S{32})$/m).at(-1)!;
const held = (sharerId: string, granteeId: string) =>
  world.services.permissions.permissionsOf(world.scope(AS_SERVER), sharerId, granteeId);

/** An account with `email`, verified by it when `verified`. */
async function person(email = address(), verified = false) {
  const userId = await world.account({ email });
  if (verified) await world.services.users.update(world.scope(AS_SERVER), userId, { emailVerified: true });
  return { userId, email };
}

describe('what an invitation offers', () => {
  it('at least one grantable permission, each once, in the fixed order', () => {
    expect(checkOffered(['note', 'view', 'note'])).toEqual(['view', 'note']);
    for (const offered of [[], ['root'], ['admin']]) expect(() => checkOffered(offered)).toThrow(/permissions/);
  });
});

describe('who may invite', () => {
  it('the sharer, its custodian and servers; not a viewer, not anonymous callers', async () => {
    const sharer = await person();
    const [custodian, viewer] = [await person(), await person()];
    await world.share(sharer.userId, custodian.userId, ['custodian']);
    await world.share(sharer.userId, viewer.userId, ['view']);
    const send = (scope: ReturnType<typeof as>) =>
      outcomeOf(invitations.send(scope, sharer.userId, { email: address(), permissions: ['view'] }));
    expect(await send(as(sharer.userId))).toBe('ok');
    expect(await send(as(custodian.userId))).toBe('ok');
    expect(await send(world.scope(AS_SERVER))).toBe('ok');
    expect(await send(as(viewer.userId))).toBe('FORBIDDEN');
    expect(await send(world.scope(ANONYMOUS))).toBe('UNAUTHENTICATED');
  });

  it('the grant an accepted invitation makes is recorded as made by its sender', async () => {
    const [sharer, custodian, invitee] = [await person(), await person(), await person()];
    await world.share(sharer.userId, custodian.userId, ['custodian']);
    await invitations.send(as(custodian.userId), sharer.userId, { email: invitee.email, permissions: ['upload'] });
    await invitations.accept(as(invitee.userId), invitee.userId, sharer.userId, keyMailedTo(invitee.email));
    expect(await held(sharer.userId, invitee.userId)).toEqual(['upload']);
    const [grant] = await world.database.query(
      'select granted_by from permission_grants where sharer_id = $1 and grantee_id = $2',
      [sharer.userId, invitee.userId],
    );
    expect(grant.granted_by).toBe(custodian.userId);
  });
});

describe('answering by the listed handle', () => {
  it('needs the invited address verified by the account answering', async () => {
    const sharer = await person();
    const [unverified, verified] = [await person(), await person(address(), true)];
    const toUnverified = await invitations.send(as(sharer.userId), sharer.userId, {
      email: unverified.email,
      permissions: ['view'],
    });
    await invitations.send(as(sharer.userId), sharer.userId, { email: verified.email, permissions: ['note'] });
    expect(await invitations.received(as(unverified.userId), unverified.userId)).toEqual([]);
    const [listed] = await invitations.received(as(verified.userId), verified.userId);
    expect(listed).toMatchObject({ sharerId: sharer.userId, permissions: ['note'], canAccept: true });

    const byHandle = (who: { userId: string }, id: string) =>
      outcomeOf(invitations.accept(as(who.userId), who.userId, sharer.userId, id));
    expect(await byHandle(unverified, toUnverified.id)).toBe('NOT_FOUND');
    // Another account's verified address is not this one's either.
    expect(await byHandle(verified, toUnverified.id)).toBe('NOT_FOUND');
    expect(await byHandle(verified, listed!.id)).toBe('ok');
    expect(await held(sharer.userId, verified.userId)).toEqual(['note']);
    expect(await byHandle(verified, listed!.id)).toBe('NOT_FOUND');
  });

  it('only the invitee itself or a server answers for the invitee', async () => {
    const [sharer, invitee, other] = [await person(), await person(), await person()];
    await invitations.send(as(sharer.userId), sharer.userId, { email: invitee.email, permissions: ['view'] });
    const key = keyMailedTo(invitee.email);
    expect(await outcomeOf(invitations.accept(as(other.userId), invitee.userId, sharer.userId, key))).toBe('FORBIDDEN');
    expect(await outcomeOf(invitations.received(as(other.userId), invitee.userId))).toBe('FORBIDDEN');
    expect(await outcomeOf(invitations.dismiss(world.scope(AS_SERVER), invitee.userId, sharer.userId, key))).toBe('ok');
  });
});

describe('invitations sent through a clinic’s access', () => {
  it('end with the clinic’s backing: its admin leaving cancels what it sent on a patient’s account', async () => {
    const [admin, otherAdmin, patient] = [await person(), await person(), await person()];
    const clinicId = await world.clinic({
      clinicianId: admin.userId,
      roles: ['CLINIC_ADMIN'],
      patients: { [patient.userId]: ['custodian', 'view'] },
    });
    const { clinicians, careTeamInvitations } = world.services;
    await clinicians.create(world.scope(AS_SERVER), clinicId, {
      userId: otherAdmin.userId,
      email: otherAdmin.email,
      roles: ['CLINIC_ADMIN'],
    });
    const sentByAdmin = await careTeamInvitations.send(as(admin.userId), patient.userId, {
      email: address(),
      permissions: ['view'],
    });
    const sentByPatient = await careTeamInvitations.send(as(patient.userId), patient.userId, {
      email: address(),
      permissions: ['view'],
    });
    await clinicians.remove(as(otherAdmin.userId), clinicId, admin.userId);
    const pending = await careTeamInvitations.sent(world.scope(AS_SERVER), patient.userId);
    expect(pending.map((invitation) => invitation.id)).toEqual([sentByPatient.id]);
    expect(pending.map((invitation) => invitation.id)).not.toContain(sentByAdmin.id);
  });
});
