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
import type { AccessPolicy, Requirement } from './access-policy';
import type { Permission } from './permission.model';

/** The requirements the domains ask (blobs.service.ts, device-logs.service.ts, account-lifecycle.service.ts). */
const READ_BLOBS: Requirement = ['custodian'];
const WRITE_CONTENT: Requirement = ['upload', 'custodian'];
const READ_LOGS: Requirement = 'any-grant';
const OWNER_ONLY: Requirement = 'owner-only';

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
    for (const requirement of [READ_BLOBS, WRITE_CONTENT, READ_LOGS, OWNER_ONLY]) {
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
  // Rows: the grantee's only permission; columns: read blobs, write content, read device logs, owner-only.
  const table: [Permission, boolean, boolean, boolean, boolean][] = [
    ['custodian', true, true, true, false],
    ['view', false, false, true, false],
    ['upload', false, true, true, false],
    ['note', false, false, true, false],
  ];

  it.each(table)(
    'a grantee with %s permission: reads blobs %s, uploads %s, reads device logs %s, owner-only %s',
    async (permission, readBlobs, write, readLogs, ownerOnly) => {
      const principal = asUser(granteeWith[permission]);
      expect(await allowed(principal, owner, READ_BLOBS)).toBe(readBlobs);
      expect(await allowed(principal, owner, WRITE_CONTENT)).toBe(write);
      expect(await allowed(principal, owner, READ_LOGS)).toBe(readLogs);
      expect(await allowed(principal, owner, OWNER_ONLY)).toBe(ownerOnly);
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
    for (const requirement of [READ_BLOBS, WRITE_CONTENT, READ_LOGS, OWNER_ONLY])
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
    expect(await policy.allowedTargets(scope, targets, READ_LOGS)).toEqual(new Set([owner, other, uploader]));
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
