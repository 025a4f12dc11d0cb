import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_CLIENT,
  AS_SERVER,
  asUser,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { notFound } from '../../kernel/errors';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import { MAY_READ_DATA, type AccessPolicy, type Requirement } from './access-policy';
import type { Permission } from './permission.model';

/** The requirements the domains ask (blobs.service.ts, device-logs.service.ts, account-lifecycle.service.ts). */
const READ_BLOBS: Requirement = ['custodian'];
const WRITE_CONTENT: Requirement = ['upload', 'custodian'];
const READ_LOGS: Requirement = MAY_READ_DATA;
const OWNER_ONLY: Requirement = 'owner-only';
const CONTROL: Requirement = 'account-control';

let world: DomainWorld;
let policy: AccessPolicy;
let owner: string;
let outsider: string;
/** One grantee of the owner per grantable permission, holding that permission alone. */
const granteeWith = {} as Record<Permission, string>;

beforeAll(async () => {
  world = await startDomainWorld();
  policy = world.services.access;
  owner = await world.account();
  outsider = await world.account();
  for (const permission of ['custodian', 'view', 'upload', 'note'] as const) {
    granteeWith[permission] = await world.account();
    await world.share(owner, granteeWith[permission], [permission]);
  }
});
afterAll(() => world?.stop());

const allowed = (principal: Principal, target: string, requirement: Requirement) =>
  policy.isAllowed(world.scope(principal), target, requirement);
const assertion = (principal: Principal, target: string, requirement: Requirement) =>
  outcomeOf(policy.assertAllowed(world.scope(principal), target, requirement));

describe('the owner and servers', () => {
  it('the owner may do anything with its own account, owner-only operations included, and nothing is logged', async () => {
    for (const requirement of [READ_BLOBS, WRITE_CONTENT, READ_LOGS, OWNER_ONLY, CONTROL]) {
      const scope = world.scope(asUser(owner));
      expect(await policy.isAllowed(scope, owner, requirement)).toBe(true);
      expect(await scope.decisions()).toEqual([]);
    }
  });

  it('a server token may do anything with any account, and each access is logged as allowed through no clinic', async () => {
    const scope = world.scope(AS_SERVER);
    const targets = [owner, outsider, '9999999999'];
    expect(await policy.allowedTargets(scope, targets, OWNER_ONLY, ['object-1'])).toEqual(new Set(targets));
    expect(await scope.decisions()).toEqual(
      targets.map((subjectId) =>
        expect.objectContaining({ subjectId, outcome: 'ALLOWED', objectIds: ['object-1'], clinicId: null }),
      ),
    );
  });
});

describe('callers who are no account', () => {
  it('an anonymous caller may do nothing, is told to authenticate, and is not logged', async () => {
    const scope = world.scope(ANONYMOUS);
    expect(await policy.allowedTargets(scope, [owner], READ_LOGS)).toEqual(new Set());
    expect(await outcomeOf(policy.assertAllowed(scope, owner, READ_LOGS))).toBe('UNAUTHENTICATED');
    expect(await scope.decisions()).toEqual([]);
  });

  it('a client acting for no account is refused (FORBIDDEN) and logged as refused, since it is someone', async () => {
    const scope = world.scope(AS_CLIENT);
    expect(await outcomeOf(policy.assertAllowed(scope, owner, READ_LOGS))).toBe('FORBIDDEN');
    expect(await scope.decisions()).toEqual([expect.objectContaining({ subjectId: owner, outcome: 'REFUSED' })]);
  });
});

describe('grantees', () => {
  // Rows: the grantee's only permission; columns: read blobs, write content, read data (glucose,
  // datasets, summaries, device logs), owner-only, account-level acts. Reading data takes `view`
  // (or custodian), as Tidepool's platform checks `view`: `upload` and `note` alone read nothing.
  const table: [Permission, boolean, boolean, boolean, boolean, boolean][] = [
    ['custodian', true, true, true, false, true],
    ['view', false, false, true, false, false],
    ['upload', false, true, false, false, false],
    ['note', false, false, false, false, false],
  ];

  it.each(table)(
    'a grantee with %s permission: reads blobs %s, uploads %s, reads data %s, owner-only %s, account-level %s',
    async (permission, readBlobs, write, readData, ownerOnly, control) => {
      const principal = asUser(granteeWith[permission]);
      expect(await allowed(principal, owner, READ_BLOBS)).toBe(readBlobs);
      expect(await allowed(principal, owner, WRITE_CONTENT)).toBe(write);
      expect(await allowed(principal, owner, READ_LOGS)).toBe(readData);
      expect(await allowed(principal, owner, OWNER_ONLY)).toBe(ownerOnly);
      expect(await allowed(principal, owner, CONTROL)).toBe(control);
    },
  );

  it('a refused grantee gets FORBIDDEN, or the error the domain chooses to hide the account behind', async () => {
    const viewer = asUser(granteeWith.view);
    expect(await assertion(viewer, owner, WRITE_CONTENT)).toBe('FORBIDDEN');
    const hidden = policy.assertAllowed(world.scope(viewer), owner, OWNER_ONLY, () => notFound('no such thing'));
    expect(await outcomeOf(hidden)).toBe('NOT_FOUND');
  });

  it('logs each decision on the owner’s account with the objects it touched, allowed or refused', async () => {
    const scope = world.scope(asUser(granteeWith.view));
    await policy.isAllowed(scope, { userId: owner, objectIds: ['log-1'] }, READ_LOGS);
    await policy.isAllowed(scope, { userId: owner, objectIds: ['blob-1'] }, READ_BLOBS);
    expect(await scope.decisions()).toEqual([
      expect.objectContaining({ subjectId: owner, outcome: 'ALLOWED', objectIds: ['log-1'], clinicId: null }),
      expect.objectContaining({ subjectId: owner, outcome: 'REFUSED', objectIds: ['blob-1'], clinicId: null }),
    ]);
  });

  it('a grant goes one way: the owner gains nothing on its grantee’s account', async () => {
    expect(await assertion(asUser(owner), granteeWith.custodian, READ_LOGS)).toBe('FORBIDDEN');
  });

  it('an outsider holds nothing, whatever is asked', async () => {
    for (const requirement of [READ_BLOBS, WRITE_CONTENT, READ_LOGS, OWNER_ONLY, CONTROL])
      expect(await assertion(asUser(outsider), owner, requirement)).toBe('FORBIDDEN');
  });

  it('a grant taken back counts no more, from the next request on', async () => {
    const sharer = await world.account();
    const former = await world.account();
    await world.share(sharer, former, ['view']);
    expect(await allowed(asUser(former), sharer, READ_LOGS)).toBe(true);
    await world.share(sharer, former, []);
    expect(await allowed(asUser(former), sharer, READ_LOGS)).toBe(false);
  });

  it('answers for many accounts at once: the caller’s own, those it holds enough on, not the rest', async () => {
    const uploader = granteeWith.upload;
    const other = await world.account();
    await world.share(other, uploader, ['view']);
    const targets = [owner, other, outsider, uploader, owner];
    const scope = world.scope(asUser(uploader));
    expect(await policy.allowedTargets(scope, targets, WRITE_CONTENT)).toEqual(new Set([owner, uploader]));
    expect(await policy.allowedTargets(scope, targets, READ_LOGS)).toEqual(new Set([other, uploader]));
  });
});

describe('clinicians, through a clinic’s patient grant', () => {
  it('a clinic member holds what the patient granted the clinic, and the log names that clinic', async () => {
    const patient = await world.account();
    const clinician = await world.account();
    const clinicId = await world.clinic({ clinicianId: clinician, patients: { [patient]: ['view'] } });
    const scope = world.scope(asUser(clinician));
    expect(await policy.isAllowed(scope, patient, READ_LOGS)).toBe(true);
    expect(await policy.isAllowed(scope, patient, WRITE_CONTENT)).toBe(false);
    expect(await scope.decisions()).toEqual([
      expect.objectContaining({ subjectId: patient, outcome: 'ALLOWED', clinicId }),
      expect.objectContaining({ subjectId: patient, outcome: 'REFUSED', clinicId: null }),
    ]);
  });

  it('whatever the clinician’s role: a prescriber holds the clinic’s upload grant as an admin would', async () => {
    const patient = await world.account();
    const prescriber = await world.account();
    await world.clinic({ clinicianId: prescriber, roles: ['PRESCRIBER'], patients: { [patient]: ['upload'] } });
    expect(await allowed(asUser(prescriber), patient, WRITE_CONTENT)).toBe(true);
    expect(await allowed(asUser(prescriber), patient, READ_BLOBS)).toBe(false);
  });

  it('a patient of the clinic who granted it nothing, or a patient of another clinic, is out of reach', async () => {
    const [withoutGrant, elsewhere, clinician] = [await world.account(), await world.account(), await world.account()];
    await world.clinic({ clinicianId: clinician, patients: { [withoutGrant]: [] } });
    await world.clinic({ patients: { [elsewhere]: ['custodian', 'view'] } });
    expect(await assertion(asUser(clinician), withoutGrant, READ_LOGS)).toBe('FORBIDDEN');
    expect(await assertion(asUser(clinician), elsewhere, READ_LOGS)).toBe('FORBIDDEN');
  });

  it('a direct grant comes first: the log names no clinic when the caller got in on its own grant', async () => {
    const patient = await world.account();
    const clinician = await world.account();
    await world.clinic({ clinicianId: clinician, patients: { [patient]: ['view'] } });
    await world.share(patient, clinician, ['view']);
    const scope = world.scope(asUser(clinician));
    expect(await policy.isAllowed(scope, patient, READ_LOGS)).toBe(true);
    expect(await scope.decisions()).toEqual([expect.objectContaining({ outcome: 'ALLOWED', clinicId: null })]);
  });

  it('what a caller holds merges its direct grant and every clinic’s, each permission once', async () => {
    const patient = await world.account();
    const clinician = await world.account();
    await world.clinic({ clinicianId: clinician, patients: { [patient]: ['view', 'upload'] } });
    await world.clinic({ clinicianId: clinician, patients: { [patient]: ['note', 'view'] } });
    await world.share(patient, clinician, ['view']);
    const held = await policy.heldBy(world.scope(AS_SERVER), clinician, patient);
    expect(held?.sort()).toEqual(['note', 'upload', 'view']);
    expect(await policy.heldBy(world.scope(AS_SERVER), outsider, patient)).toBeNull();
  });
});

describe('acts on the account itself, through a clinic’s custodian', () => {
  it('every clinician uses the clinic’s custodian to read, but only its admins act on the account', async () => {
    const patient = await world.account();
    const [admin, member, prescriber] = [await world.account(), await world.account(), await world.account()];
    const clinicId = await world.clinic({
      clinicianId: admin,
      roles: ['CLINIC_ADMIN'],
      patients: { [patient]: ['custodian', 'view'] },
    });
    await world.database.query(
      `insert into clinicians (clinic_id, user_id, roles, created_time, updated_time)
       values ($1, $2, '{CLINIC_MEMBER}', now(), now()), ($1, $3, '{PRESCRIBER}', now(), now())`,
      [clinicId, member, prescriber],
    );
    for (const clinician of [admin, member, prescriber])
      expect(await allowed(asUser(clinician), patient, READ_BLOBS)).toBe(true);
    expect(await allowed(asUser(admin), patient, CONTROL)).toBe(true);
    for (const clinician of [member, prescriber]) {
      const scope = world.scope(asUser(clinician));
      expect(await outcomeOf(policy.assertAllowed(scope, patient, CONTROL))).toBe('FORBIDDEN');
      expect(await scope.decisions()).toEqual([expect.objectContaining({ subjectId: patient, outcome: 'REFUSED' })]);
    }
  });

  it('names the grant that let the caller in: the clinic’s for its admin, none for the owner and servers', async () => {
    const patient = await world.account();
    const admin = await world.account();
    const clinicId = await world.clinic({
      clinicianId: admin,
      roles: ['CLINIC_ADMIN'],
      patients: { [patient]: ['custodian'] },
    });
    const scope = world.scope(asUser(admin));
    expect(await policy.grantUsed(scope, patient, CONTROL)).toEqual({ permissions: ['custodian'], clinicId });
    expect(await scope.decisions()).toEqual([expect.objectContaining({ outcome: 'ALLOWED', clinicId })]);
    expect(await policy.grantUsed(world.scope(asUser(patient)), patient, CONTROL)).toBeNull();
    expect(await policy.grantUsed(world.scope(AS_SERVER), patient, CONTROL)).toBeNull();
    expect(await outcomeOf(policy.grantUsed(world.scope(asUser(outsider)), patient, CONTROL))).toBe('FORBIDDEN');
  });

  it('a direct grant made through a clinic is the clinic’s: the log names it, and only its admins act with it', async () => {
    const patient = await world.account();
    const [admin, member] = [await world.account(), await world.account()];
    const clinicId = await world.clinic({ clinicianId: admin, roles: ['CLINIC_ADMIN'] });
    await world.database.query(
      `insert into permission_grants (sharer_id, grantee_id, permissions, clinic_id, granted_by, created_time, modified_time)
       values ($1, $2, '{custodian}', $4, $3, now(), now()), ($1, $3, '{custodian}', $4, $3, now(), now())`,
      [patient, member, admin, clinicId],
    );
    const scope = world.scope(asUser(member));
    expect(await policy.isAllowed(scope, patient, READ_BLOBS)).toBe(true);
    expect(await policy.isAllowed(scope, patient, CONTROL)).toBe(false);
    expect(await scope.decisions()).toEqual([
      expect.objectContaining({ outcome: 'ALLOWED', clinicId }),
      expect.objectContaining({ outcome: 'REFUSED', clinicId: null }),
    ]);
    expect(await allowed(asUser(admin), patient, CONTROL)).toBe(true);
  });
});
