import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_CLIENT,
  AS_SERVER,
  asUser,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { requestScope } from '../../infra/logger';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import { MAX_NAME_LENGTH } from './patient-fields';
import { MAX_SEARCH_LENGTH } from './patient-list';
import type { PatientsService } from './patients.service';
import { MAX_REVIEWS } from './reviews';

let world: DomainWorld;
let patients: PatientsService;

beforeAll(async () => {
  world = await startDomainWorld();
  patients = world.services.patients;
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);
const BY_NAME = { field: 'fullName', descending: false } as const;

/** A clinic (created by its admin) with a member, a prescriber, a patient added by a server, and an outsider. */
async function clinicOf() {
  const [{ clinic, ...staff }, patient] = await Promise.all([world.staffedClinic(), world.account()]);
  await patients.add(as(AS_SERVER), clinic.id, patient, { fullName: 'Pat Ient', permissions: ['view'] });
  return { clinicId: clinic.id, patient, ...staff };
}
const namesIn = async (clinicId: string, filter = {}, order: { field: 'fullName'; descending: boolean } = BY_NAME) =>
  (await patients.list(as(AS_SERVER), clinicId, filter, order, null, null)).page.nodes.map((row) => row.fullName);

describe('who may see a clinic’s patients', () => {
  it('its members, admins and servers list and read them', async () => {
    const { clinicId, admin, member, patient } = await clinicOf();
    for (const reader of [asUser(admin), asUser(member), AS_SERVER]) {
      const { page, count } = await patients.list(as(reader), clinicId, {}, BY_NAME, null, null);
      expect(page.nodes.map((row) => row.userId)).toEqual([patient]);
      expect(await count()).toBe(1);
      expect(await patients.get(as(reader), clinicId, patient)).toMatchObject({ fullName: 'Pat Ient' });
    }
  });

  it('not a prescriber alone, an outsider, nor a client without an account; anonymous must log in', async () => {
    const { clinicId, prescriber, outsider, patient } = await clinicOf();
    for (const reader of [asUser(prescriber), asUser(outsider), AS_CLIENT]) {
      expect(await outcomeOf(patients.list(as(reader), clinicId, {}, BY_NAME, null, null))).toBe('FORBIDDEN');
      expect(await outcomeOf(patients.get(as(reader), clinicId, patient))).toBe('FORBIDDEN');
    }
    expect(await outcomeOf(patients.get(as(ANONYMOUS), clinicId, patient))).toBe('UNAUTHENTICATED');
  });

  it('a refused read is on the patient’s access trail', async () => {
    const { clinicId, outsider, patient } = await clinicOf();
    const scope = as(asUser(outsider));
    await outcomeOf(patients.get(scope, clinicId, patient));
    expect(await scope.decisions()).toEqual([expect.objectContaining({ subjectId: patient, outcome: 'REFUSED' })]);
  });

  it('someone who is not a patient, or an unknown clinic, is NOT_FOUND', async () => {
    const { clinicId, member, outsider } = await clinicOf();
    expect(await outcomeOf(patients.get(as(asUser(member)), clinicId, outsider))).toBe('NOT_FOUND');
    expect(await outcomeOf(patients.get(as(AS_SERVER), 'f'.repeat(24), outsider))).toBe('NOT_FOUND');
  });
});

describe('pages of many clinics in one request', () => {
  it('are each the page the clinic answers alone, in every order, counted alike', async () => {
    const clinics = await Promise.all([clinicOf(), clinicOf(), clinicOf()]);
    const [first] = clinics;
    for (const name of ['Ann Other', 'Zed Last']) {
      const extra = await world.account();
      await patients.add(as(AS_SERVER), first!.clinicId, extra, { fullName: name, permissions: ['view'] });
    }
    const ids = [...clinics.map(({ clinicId }) => clinicId), first!.clinicId, 'f'.repeat(24)];
    for (const order of [
      BY_NAME,
      { field: 'fullName', descending: true } as const,
      { field: 'userId', descending: false } as const,
    ])
      for (const pageSize of [1, 2, 100]) {
        const alone = await Promise.all(ids.map((id) => patients.list(as(AS_SERVER), id, {}, order, pageSize, null)));
        const scope = as(AS_SERVER);
        const together = await Promise.all(ids.map((id) => patients.list(scope, id, {}, order, pageSize, null)));
        const names = (lists: typeof alone) => lists.map(({ page }) => page.nodes.map((row) => row.fullName));
        expect(names(together)).toEqual(names(alone));
        expect(await Promise.all(together.map(({ count }) => count()))).toEqual([3, 1, 1, 3, 0]);
      }
    expect(await namesIn(first!.clinicId, {}, { field: 'fullName', descending: true })).toEqual([
      'Zed Last',
      'Pat Ient',
      'Ann Other',
    ]);
  });
});

describe('adding an existing account', () => {
  it('is for servers only, with clinic permissions, for an account that exists, once', async () => {
    const { clinicId, admin, member, patient } = await clinicOf();
    const user = await world.account();
    const input = { permissions: ['view', 'upload'] };
    expect(await outcomeOf(patients.add(as(asUser(admin)), clinicId, user, input))).toBe('FORBIDDEN');
    expect(await outcomeOf(patients.add(as(AS_SERVER), clinicId, '0000000000', input))).toBe('NOT_FOUND');
    expect(await outcomeOf(patients.add(as(AS_SERVER), clinicId, patient, input))).toBe('CONFLICT');
    for (const permissions of [[], ['custodian'], ['view', 'view']])
      await expect(patients.add(as(AS_SERVER), clinicId, user, { permissions })).rejects.toMatchObject({
        code: 'INVALID',
      });
    const added = await patients.add(as(AS_SERVER), clinicId, user, input);
    expect(added).toMatchObject({ userId: user, permissions: ['view', 'upload'] });
    expect(await world.services.access.isAllowed(as(asUser(member)), user, ['view'])).toBe(true);
  });

  it('names the patient after its address until the clinic gives a name', async () => {
    const { clinicId } = await clinicOf();
    const address = 'named.after@example.org';
    const user = await world.account({ email: address });
    expect(await patients.add(as(AS_SERVER), clinicId, user, { permissions: ['view'] })).toMatchObject({
      fullName: address,
      email: address,
    });
  });
});

describe('custodial patients', () => {
  it('a member creates one: a new account the clinic is custodian of', async () => {
    const { clinicId, member, prescriber } = await clinicOf();
    const created = await patients.create(as(asUser(member)), clinicId, {
      fullName: 'Kid Patient',
      birthDate: '2015-06-01',
      mrn: 'MRN-1',
    });
    expect(created).toMatchObject({
      fullName: 'Kid Patient',
      mrn: 'MRN-1',
      permissions: ['custodian', 'view', 'upload', 'note'],
    });
    expect(await world.services.access.isAllowed(as(asUser(prescriber)), created.userId, ['custodian'])).toBe(true);
    expect((await patients.clinicsOf(as(asUser(member)), created.userId)).map((row) => row.clinicId)).toEqual([
      clinicId,
    ]);
  });

  it('is refused to a prescriber alone and an outsider, and checks the record', async () => {
    const { clinicId, member, prescriber, outsider } = await clinicOf();
    const fields = { fullName: 'Kid', birthDate: '2015-06-01' };
    for (const caller of [prescriber, outsider])
      expect(await outcomeOf(patients.create(as(asUser(caller)), clinicId, fields))).toBe('FORBIDDEN');
    for (const [field, bad] of [
      ['fullName', ''],
      ['fullName', 'x'.repeat(MAX_NAME_LENGTH + 1)],
      ['birthDate', '2015-13-01'],
      ['birthDate', '1899-12-31'],
    ])
      await expect(patients.create(as(asUser(member)), clinicId, { ...fields, [field]: bad })).rejects.toMatchObject({
        code: 'INVALID',
        details: { field },
      });
    expect(await patients.count(as(asUser(member)), clinicId)).toBe(1);
  });
});

describe('changing a patient record', () => {
  it('a member changes the fields given, the others stay; a prescriber may not', async () => {
    const { clinicId, member, prescriber, patient } = await clinicOf();
    const tag = await world.services.patientTags.create(as(asUser(member)), clinicId, 'T1D');
    const changed = await patients.update(as(asUser(member)), clinicId, patient, { mrn: 'A-7', tags: [tag.id] });
    expect(changed).toMatchObject({ fullName: 'Pat Ient', mrn: 'A-7', tags: [tag.id] });
    expect(await outcomeOf(patients.update(as(asUser(prescriber)), clinicId, patient, { mrn: 'B' }))).toBe('FORBIDDEN');
    await expect(patients.update(as(asUser(member)), clinicId, patient, { fullName: null })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'fullName' },
    });
    expect((await patients.get(as(asUser(member)), clinicId, patient)).mrn).toBe('A-7');
  });

  it('a tag the clinic does not have is refused', async () => {
    const { clinicId, member, patient } = await clinicOf();
    await expect(
      patients.update(as(asUser(member)), clinicId, patient, { tags: ['a'.repeat(24)] }),
    ).rejects.toMatchObject({ code: 'INVALID', details: { field: 'tags' } });
    expect((await patients.get(as(asUser(member)), clinicId, patient)).tags).toEqual([]);
  });
});

describe('what the patient grants the clinic', () => {
  it('the patient itself or a server replaces it, clinic permissions only, never custody', async () => {
    const { clinicId, admin, patient } = await clinicOf();
    expect(await outcomeOf(patients.setPermissions(as(asUser(admin)), clinicId, patient, ['view']))).toBe('FORBIDDEN');
    await expect(
      patients.setPermissions(as(asUser(patient)), clinicId, patient, ['view', 'custodian']),
    ).rejects.toMatchObject({ code: 'INVALID' });
    const changed = await patients.setPermissions(as(asUser(patient)), clinicId, patient, ['view', 'note']);
    expect(changed?.permissions).toEqual(['view', 'note']);
    expect((await patients.setPermissions(as(AS_SERVER), clinicId, patient, ['upload']))?.permissions).toEqual([
      'upload',
    ]);
  });

  it('a custodial patient may keep the clinic’s custody when its permissions change, never gain it', async () => {
    const { clinicId, member, patient } = await clinicOf();
    const custodial = await patients.create(as(asUser(member)), clinicId, { fullName: 'Kid', birthDate: '2015-06-01' });
    const kept = await patients.setPermissions(as(AS_SERVER), clinicId, custodial.userId, ['custodian', 'view']);
    expect(kept?.permissions).toEqual(['custodian', 'view']);
    await expect(
      patients.setPermissions(as(AS_SERVER), clinicId, patient, ['custodian', 'view']),
    ).rejects.toMatchObject({ code: 'INVALID', details: { field: 'permissions' } });
  });

  it('granting nothing, or revoking the last permission, ends being a patient', async () => {
    const { clinicId, member, patient } = await clinicOf();
    expect(await patients.revokePermission(as(asUser(patient)), clinicId, patient, 'view')).toBeNull();
    expect(await outcomeOf(patients.get(as(asUser(member)), clinicId, patient))).toBe('NOT_FOUND');
    const other = await clinicOf();
    expect(await patients.setPermissions(as(asUser(other.patient)), other.clinicId, other.patient, [])).toBeNull();
    expect(await patients.count(as(AS_SERVER), other.clinicId)).toBe(0);
  });
});

describe('reviews', () => {
  it('a member’s review comes first, and only the ten newest are kept', async () => {
    const { clinicId, admin, member, patient } = await clinicOf();
    for (let review = 0; review < MAX_REVIEWS; review++) await patients.review(as(asUser(admin)), clinicId, patient);
    const reviewed = await patients.review(as(asUser(member)), clinicId, patient);
    expect(reviewed.reviews).toHaveLength(MAX_REVIEWS);
    expect(reviewed.reviews[0].clinicianId).toBe(member);
    expect(reviewed.reviews.slice(1).every((review) => review.clinicianId === admin)).toBe(true);
    expect(reviewed.lastReviewed?.toISOString()).toBe(reviewed.reviews[0].time);
  });

  it('is a clinician’s act: a server token may not review, a prescriber alone may not either', async () => {
    const { clinicId, prescriber, patient } = await clinicOf();
    expect(await outcomeOf(patients.review(as(AS_SERVER), clinicId, patient))).toBe('FORBIDDEN');
    expect(await outcomeOf(patients.review(as(asUser(prescriber)), clinicId, patient))).toBe('FORBIDDEN');
  });

  it('only its maker reverts the newest review; with none left it is NOT_FOUND', async () => {
    const { clinicId, admin, member, patient } = await clinicOf();
    await patients.review(as(asUser(member)), clinicId, patient);
    expect(await outcomeOf(patients.revertReview(as(asUser(admin)), clinicId, patient))).toBe('CONFLICT');
    const reverted = await patients.revertReview(as(asUser(member)), clinicId, patient);
    expect(reverted).toMatchObject({ reviews: [], lastReviewed: null });
    expect(await outcomeOf(patients.revertReview(as(AS_SERVER), clinicId, patient))).toBe('NOT_FOUND');
  });
});

describe('removing a patient', () => {
  it('an admin, a server or the patient itself removes it; a member may not', async () => {
    const { clinicId, admin, member, patient } = await clinicOf();
    expect(await outcomeOf(patients.remove(as(asUser(member)), clinicId, patient))).toBe('FORBIDDEN');
    await patients.remove(as(asUser(admin)), clinicId, patient);
    expect(await outcomeOf(patients.get(as(asUser(admin)), clinicId, patient))).toBe('NOT_FOUND');
    expect(await world.services.access.isAllowed(as(asUser(member)), patient, ['view'])).toBe(false);
    expect(await outcomeOf(patients.remove(as(asUser(admin)), clinicId, patient))).toBe('NOT_FOUND');
    const other = await clinicOf();
    await patients.remove(as(asUser(other.patient)), other.clinicId, other.patient);
    expect(await patients.count(as(AS_SERVER), other.clinicId)).toBe(0);
  });

  it('an account going away is no longer anyone’s patient', async () => {
    const { clinicId, patient } = await clinicOf();
    const other = await clinicOf();
    await patients.add(as(AS_SERVER), other.clinicId, patient, { permissions: ['view'] });
    await patients.forgetUser(as(AS_SERVER), patient);
    expect(await patients.count(as(AS_SERVER), clinicId)).toBe(0);
    expect(await namesIn(other.clinicId)).toEqual(['Pat Ient']);
  });
});

describe('the patient list', () => {
  it('that answers its counts has them read beside its page, each in a statement of its own', async () => {
    const { clinicId, member } = await clinicOf();
    await patients.create(as(asUser(member)), clinicId, { fullName: 'Pat Other', birthDate: '2000-01-01' });
    await patients.create(as(asUser(member)), clinicId, { fullName: 'Bob Young', birthDate: '2000-01-01' });
    const request = { requestId: 'counted', sqlStatements: 0 };
    const scope = as(AS_SERVER);
    const read = <T>(reading: () => Promise<T>) => requestScope.run(request, reading);
    const list = await read(() =>
      patients.list(scope, clinicId, { search: 'pat' }, BY_NAME, 1, null, null, { counts: true }),
    );
    expect(list.page.nodes.map((row) => row.fullName)).toEqual(['Pat Ient']);
    const byThePage = request.sqlStatements;
    expect(await read(() => Promise.all([list.count(), patients.count(scope, clinicId)]))).toEqual([2, 3]);
    expect(request.sqlStatements).toBe(byThePage);
    // Without them, the page counts nothing, and a count is read when asked.
    const plain = await read(() => patients.list(as(AS_SERVER), clinicId, { search: 'pat' }, BY_NAME, 1, null));
    const afterPlain = request.sqlStatements;
    expect(await read(() => plain.count())).toBe(2);
    expect(request.sqlStatements).toBe(afterPlain + 1);
  });

  it('orders by name either way and finds by a part of name, email or MRN in any letter case, literally', async () => {
    const { clinicId, member } = await clinicOf();
    for (const [fullName, mrn] of [
      ['alice Zed', 'Q-1'],
      ['Bob Young', 'Q-2'],
    ])
      await patients.create(as(asUser(member)), clinicId, { fullName, birthDate: '2000-01-01', mrn });
    expect(await namesIn(clinicId)).toEqual(['alice Zed', 'Bob Young', 'Pat Ient']);
    expect(await namesIn(clinicId, {}, { field: 'fullName', descending: true })).toEqual([
      'Pat Ient',
      'Bob Young',
      'alice Zed',
    ]);
    expect(await namesIn(clinicId, { search: '  ZED ' })).toEqual(['alice Zed']);
    expect(await namesIn(clinicId, { search: 'q-2' })).toEqual(['Bob Young']);
    expect(await namesIn(clinicId, { search: '%' })).toEqual([]);
    expect(await namesIn(clinicId, { search: 'q_2' })).toEqual([]);
    await expect(
      patients.list(as(AS_SERVER), clinicId, { search: 'x'.repeat(MAX_SEARCH_LENGTH + 1) }, BY_NAME, null, null),
    ).rejects.toMatchObject({ code: 'INVALID', details: { field: 'filter.search' } });
  });

  it('filtered by tags holds the patients carrying all of them', async () => {
    const { clinicId, member, patient } = await clinicOf();
    const [first, second] = [
      await world.services.patientTags.create(as(asUser(member)), clinicId, 'First'),
      await world.services.patientTags.create(as(asUser(member)), clinicId, 'Second'),
    ];
    const both = await patients.create(as(asUser(member)), clinicId, {
      fullName: 'Both Tags',
      birthDate: '2000-01-01',
      tags: [first.id, second.id],
    });
    await patients.update(as(asUser(member)), clinicId, patient, { tags: [first.id] });
    expect(await namesIn(clinicId, { tags: [first.id] })).toEqual(['Both Tags', 'Pat Ient']);
    expect(await namesIn(clinicId, { tags: [first.id, second.id] })).toEqual([both.fullName]);
    await expect(
      patients.list(as(AS_SERVER), clinicId, { tags: ['not-a-tag'] }, BY_NAME, null, null),
    ).rejects.toMatchObject({ code: 'INVALID', details: { field: 'filter.tags' } });
  });

  it('filtered by last review holds those reviewed at or before the time, never the unreviewed', async () => {
    const { clinicId, member, patient } = await clinicOf();
    await patients.create(as(asUser(member)), clinicId, { fullName: 'Never Reviewed', birthDate: '2000-01-01' });
    const reviewedAt = (await patients.review(as(asUser(member)), clinicId, patient)).lastReviewed!;
    expect(await namesIn(clinicId, { lastReviewed: reviewedAt })).toEqual(['Pat Ient']);
    expect(await namesIn(clinicId, { lastReviewed: new Date(reviewedAt.getTime() - 1) })).toEqual([]);
  });
});
