import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_CLIENT,
  AS_SERVER,
  asUser,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import type { PermissionsService } from './permissions.service';

let world: DomainWorld;
let sharing: PermissionsService;
let sharer: string;
let custodian: string;
let viewer: string;
let outsider: string;

beforeAll(async () => {
  world = await startDomainWorld();
  sharing = world.services.permissions;
  [sharer, custodian, viewer, outsider] = await Promise.all([1, 2, 3, 4].map(() => world.account()));
  await world.share(sharer, custodian, ['custodian', 'view', 'upload']);
  await world.share(sharer, viewer, ['view']);
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);
const idsOf = async (list: Promise<{ page: { nodes: { userId: string }[] } }>) =>
  (await list).page.nodes.map((share) => share.userId);

describe('who may see an account’s sharing', () => {
  it('the account, its custodians and servers list who its data is shared with; the owner is not listed', async () => {
    const expected = [custodian, viewer].sort();
    for (const reader of [asUser(sharer), asUser(custodian), AS_SERVER])
      expect(await idsOf(sharing.membersOf(as(reader), sharer))).toEqual(expected);
  });

  it('a viewer, an outsider and a client without an account are refused; an anonymous caller must log in', async () => {
    expect(await outcomeOf(sharing.membersOf(as(asUser(viewer)), sharer))).toBe('FORBIDDEN');
    expect(await outcomeOf(sharing.membersOf(as(asUser(outsider)), sharer))).toBe('FORBIDDEN');
    expect(await outcomeOf(sharing.membersOf(as(AS_CLIENT), sharer))).toBe('FORBIDDEN');
    expect(await outcomeOf(sharing.membersOf(as(ANONYMOUS), sharer))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(sharing.groupsOf(as(asUser(outsider)), viewer))).toBe('FORBIDDEN');
  });

  it('an account lists the groups it can access, with what it holds in each, its own group not among them', async () => {
    const { page, count } = await sharing.groupsOf(as(asUser(viewer)), viewer);
    expect(page.nodes).toEqual([{ userId: sharer, permissions: ['view'] }]);
    expect(await count()).toBe(1);
  });

  it('lists a page at a time by account id, the next page starting after the last one seen', async () => {
    const owner = await world.account();
    const grantees = (await Promise.all([1, 2, 3].map(() => world.account()))).sort();
    for (const grantee of grantees) await world.share(owner, grantee, ['view']);
    const scope = as(asUser(owner));
    const first = await sharing.membersOf(scope, owner, 2);
    expect(first.page.nodes.map((share) => share.userId)).toEqual(grantees.slice(0, 2));
    expect(first.page.hasNextPage).toBe(true);
    expect(await first.count()).toBe(3);
    const rest = await sharing.membersOf(as(asUser(owner)), owner, 2, first.page.cursorAt(1));
    expect(rest.page.nodes.map((share) => share.userId)).toEqual([grantees[2]]);
    expect(rest.page.hasNextPage).toBe(false);
  });

  it('refuses a cursor of another account’s list and a malformed id, naming the argument', async () => {
    const { page } = await sharing.membersOf(as(AS_SERVER), sharer, 1);
    await expect(sharing.membersOf(as(AS_SERVER), viewer, 1, page.cursorAt(0))).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'after' },
    });
    await expect(sharing.membersOf(as(AS_SERVER), 'not-an-id')).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'sharerId' },
    });
  });
});

describe('what a user may do with an account’s data', () => {
  it('the owner holds root on its own data; a grantee its grant, custodian first; a stranger nothing', async () => {
    const scope = as(AS_SERVER);
    expect(await sharing.permissionsOf(scope, sharer, sharer)).toEqual(['root']);
    expect(await sharing.permissionsOf(scope, sharer, custodian)).toEqual(['custodian', 'view', 'upload']);
    expect(await sharing.permissionsOf(scope, sharer, outsider)).toBeNull();
  });

  it('a user may ask what it holds on anyone; what others hold takes custody of the account', async () => {
    expect(await sharing.permissionsOf(as(asUser(viewer)), sharer, viewer)).toEqual(['view']);
    expect(await sharing.permissionsOf(as(asUser(outsider)), sharer, outsider)).toBeNull();
    expect(await outcomeOf(sharing.permissionsOf(as(asUser(viewer)), sharer, custodian))).toBe('FORBIDDEN');
    expect(await sharing.permissionsOf(as(asUser(custodian)), sharer, viewer)).toEqual(['view']);
  });

  it('counts what reaches a clinician through its clinic, merged with its own grant', async () => {
    const patient = await world.account();
    const clinician = await world.account();
    await world.clinic({ clinicianId: clinician, patients: { [patient]: ['upload', 'view'] } });
    await world.share(patient, clinician, ['note']);
    expect(await sharing.permissionsOf(as(asUser(clinician)), patient, clinician)).toEqual(['view', 'upload', 'note']);
  });
});

describe('changing what a user may do', () => {
  it('the owner grants and replaces a grant; the answer is the new set, each permission once, in order', async () => {
    const [owner, friend] = [await world.account(), await world.account()];
    const scope = as(asUser(owner));
    expect(await sharing.setPermissions(scope, owner, friend, ['upload', 'view', 'view'])).toEqual(['view', 'upload']);
    expect(await sharing.setPermissions(as(asUser(owner)), owner, friend, ['note'])).toEqual(['note']);
    expect(await sharing.permissionsOf(as(AS_SERVER), owner, friend)).toEqual(['note']);
  });

  it('a custodian and a server may change the account’s sharing; a viewer and an outsider may not', async () => {
    const friend = await world.account();
    expect(await sharing.setPermissions(as(asUser(custodian)), sharer, friend, ['view'])).toEqual(['view']);
    expect(await sharing.setPermissions(as(AS_SERVER), sharer, friend, ['upload'])).toEqual(['upload']);
    expect(await outcomeOf(sharing.setPermissions(as(asUser(viewer)), sharer, friend, []))).toBe('FORBIDDEN');
    expect(await outcomeOf(sharing.setPermissions(as(asUser(outsider)), sharer, outsider, ['view']))).toBe('FORBIDDEN');
    expect(await outcomeOf(sharing.setPermissions(as(ANONYMOUS), sharer, friend, []))).toBe('UNAUTHENTICATED');
  });

  it('a grantee may leave a share it was given, but not widen it', async () => {
    const [owner, guest] = [await world.account(), await world.account()];
    await world.share(owner, guest, ['view']);
    expect(await outcomeOf(sharing.setPermissions(as(asUser(guest)), owner, guest, ['view', 'upload']))).toBe(
      'FORBIDDEN',
    );
    expect(await sharing.setPermissions(as(asUser(guest)), owner, guest, [])).toEqual([]);
    expect(await sharing.permissionsOf(as(AS_SERVER), owner, guest)).toBeNull();
  });

  it('refuses granting root, sharing with oneself, and accounts that do not exist', async () => {
    const owner = await world.account();
    await expect(sharing.setPermissions(as(asUser(owner)), owner, viewer, ['root'])).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'permissions' },
    });
    await expect(sharing.setPermissions(as(asUser(owner)), owner, owner, ['view'])).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'userId' },
    });
    expect(await outcomeOf(sharing.setPermissions(as(asUser(owner)), owner, '0000000000', ['view']))).toBe('NOT_FOUND');
    expect(await outcomeOf(sharing.setPermissions(as(AS_SERVER), '0000000000', owner, ['view']))).toBe('NOT_FOUND');
  });

  it('a refused change changes nothing', async () => {
    await outcomeOf(sharing.setPermissions(as(asUser(viewer)), sharer, viewer, ['custodian']));
    expect(await sharing.permissionsOf(as(AS_SERVER), sharer, viewer)).toEqual(['view']);
  });
});

describe('changing what a user may do through a clinic’s custodian', () => {
  /** A staffed clinic with a patient it created (the clinic holds custodian on it). */
  async function clinicPatient() {
    const staff = await world.staffedClinic();
    const patient = await world.services.patients.create(as(asUser(staff.admin)), staff.clinic.id, {
      fullName: 'Custodial Patient',
      birthDate: '2015-01-01',
    });
    return { ...staff, clinicId: staff.clinic.id, patient: patient.userId };
  }

  it('a member or a prescriber may not grant, not even to itself; the clinic’s admin may', async () => {
    const { admin, member, prescriber, outsider, patient } = await clinicPatient();
    for (const clinician of [member, prescriber])
      for (const grantee of [clinician, outsider])
        expect(await outcomeOf(sharing.setPermissions(as(asUser(clinician)), patient, grantee, ['custodian']))).toBe(
          'FORBIDDEN',
        );
    expect(await sharing.permissionsOf(as(AS_SERVER), patient, outsider)).toBeNull();
    expect(await sharing.setPermissions(as(asUser(admin)), patient, outsider, ['view'])).toEqual(['view']);
  });

  it('a grant made through the clinic is logged with the clinic, and serves account-level acts only to its admins', async () => {
    const { clinicId, admin, member, patient } = await clinicPatient();
    const scope = as(asUser(admin));
    await sharing.setPermissions(scope, patient, member, ['custodian', 'view']);
    expect(await scope.decisions()).toEqual([
      expect.objectContaining({ subjectId: patient, outcome: 'ALLOWED', clinicId }),
    ]);
    const outsider = await world.account();
    expect(await outcomeOf(sharing.setPermissions(as(asUser(member)), patient, outsider, ['view']))).toBe('FORBIDDEN');
  });

  it('ends when the clinic stops backing it: its maker or holder leaves the clinic, or the patient does', async () => {
    const { clinicId, admin, member, patient } = await clinicPatient();
    const [friend, other] = [await world.account(), await world.account()];
    await sharing.setPermissions(as(asUser(admin)), patient, admin, ['custodian']);
    await sharing.setPermissions(as(asUser(admin)), patient, member, ['view']);
    await sharing.setPermissions(as(asUser(admin)), patient, friend, ['view']);
    await world.share(patient, other, ['view']);
    await world.services.clinicians.remove(as(asUser(member)), clinicId, member);
    expect(await sharing.permissionsOf(as(AS_SERVER), patient, member)).toBeNull();
    expect(await sharing.permissionsOf(as(AS_SERVER), patient, friend)).toEqual(['view']);

    await world.services.patients.remove(as(asUser(admin)), clinicId, patient);
    for (const grantee of [admin, friend])
      expect(await sharing.permissionsOf(as(AS_SERVER), patient, grantee)).toBeNull();
    expect(await sharing.permissionsOf(as(AS_SERVER), patient, other)).toEqual(['view']);
  });

  it('a clinician leaving takes with it the grants it made through the clinic; the patient’s own grants stay', async () => {
    const { clinicId, admin, member, patient } = await clinicPatient();
    const friend = await world.account();
    await world.services.clinicians.update(as(AS_SERVER), clinicId, member, { roles: ['CLINIC_ADMIN'] });
    await sharing.setPermissions(as(asUser(member)), patient, friend, ['custodian']);
    await world.share(patient, admin, ['note']);
    await world.services.clinicians.remove(as(asUser(admin)), clinicId, member);
    expect(await sharing.permissionsOf(as(AS_SERVER), patient, friend)).toBeNull();
    expect(await sharing.permissionsOf(as(AS_SERVER), patient, admin)).toEqual(['custodian', 'view', 'upload', 'note']);
  });
});

describe('an account going away', () => {
  it('takes its grants in both directions with it, and nobody else’s', async () => {
    const [leaving, given, received, bystander] = await Promise.all([1, 2, 3, 4].map(() => world.account()));
    await world.share(leaving, given, ['view']);
    await world.share(received, leaving, ['view']);
    await world.share(received, bystander, ['view']);
    const scope = as(AS_SERVER);
    await sharing.forgetUser(scope, leaving);
    expect(await sharing.permissionsOf(as(AS_SERVER), leaving, given)).toBeNull();
    expect(await sharing.permissionsOf(as(AS_SERVER), received, leaving)).toBeNull();
    expect(await sharing.permissionsOf(as(AS_SERVER), received, bystander)).toEqual(['view']);
  });
});
