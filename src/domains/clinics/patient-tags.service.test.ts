import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_SERVER,
  asUser,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import { MAX_PATIENT_TAGS } from './patient-fields';
import type { PatientTagsService } from './patient-tags.service';

let world: DomainWorld;
let tags: PatientTagsService;

beforeAll(async () => {
  world = await startDomainWorld();
  tags = world.services.patientTags;
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);

/** A clinic with an admin, a member, a prescriber and a patient. */
async function clinicOf() {
  const [admin, member, prescriber, outsider, patient] = await Promise.all([1, 2, 3, 4, 5].map(() => world.account()));
  const clinicId = await world.clinic({
    clinicianId: admin,
    roles: ['CLINIC_ADMIN'],
    patients: { [patient]: ['view'] },
  });
  for (const [userId, role] of [
    [member, 'CLINIC_MEMBER'],
    [prescriber, 'PRESCRIBER'],
  ])
    await world.database.query(
      `insert into clinicians (clinic_id, user_id, roles, created_time, updated_time) values ($1, $2, $3, now(), now())`,
      [clinicId, userId, [role]],
    );
  return { clinicId, admin, member, prescriber, outsider, patient };
}
const tagNamesOf = async (clinicId: string) =>
  (await world.database.query('select name from patient_tags where clinic_id = $1 order by name', [clinicId])).map(
    (row) => row.name as string,
  );

describe('who may manage a clinic’s patient tags', () => {
  it('members and admins create and rename them; only admins (and servers) delete them', async () => {
    const { clinicId, admin, member } = await clinicOf();
    const tag = await tags.create(as(asUser(member)), clinicId, 'Pump');
    expect(await tags.rename(as(asUser(member)), clinicId, tag.id, 'Pump users')).toEqual({
      id: tag.id,
      name: 'Pump users',
    });
    expect(await outcomeOf(tags.remove(as(asUser(member)), clinicId, tag.id))).toBe('FORBIDDEN');
    expect(await tags.remove(as(asUser(admin)), clinicId, tag.id)).toEqual({ id: tag.id, name: 'Pump users' });
    const other = await tags.create(as(AS_SERVER), clinicId, 'CGM');
    await tags.remove(as(AS_SERVER), clinicId, other.id);
    expect(await tagNamesOf(clinicId)).toEqual([]);
  });

  it('not a prescriber alone, an outsider, or the clinic’s patient; anonymous callers must log in', async () => {
    const { clinicId, prescriber, outsider, patient } = await clinicOf();
    for (const caller of [prescriber, outsider, patient])
      expect(await outcomeOf(tags.create(as(asUser(caller)), clinicId, 'Mine'))).toBe('FORBIDDEN');
    expect(await outcomeOf(tags.create(as(ANONYMOUS), clinicId, 'Mine'))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(tags.create(as(asUser(outsider)), 'e'.repeat(24), 'Mine'))).toBe('NOT_FOUND');
    expect(await tagNamesOf(clinicId)).toEqual([]);
  });
});

describe('tag names', () => {
  it('are unique in a clinic ignoring letter case, when created or renamed; another clinic may reuse one', async () => {
    const { clinicId, member } = await clinicOf();
    const first = await tags.create(as(asUser(member)), clinicId, 'Type 1');
    const second = await tags.create(as(asUser(member)), clinicId, 'Type 2');
    expect(await outcomeOf(tags.create(as(asUser(member)), clinicId, 'TYPE 1'))).toBe('CONFLICT');
    expect(await outcomeOf(tags.rename(as(asUser(member)), clinicId, second.id, 'type 1'))).toBe('CONFLICT');
    expect(await tags.rename(as(asUser(member)), clinicId, first.id, 'TYPE 1')).toMatchObject({ name: 'TYPE 1' });
    const elsewhere = await clinicOf();
    expect(await outcomeOf(tags.create(as(asUser(elsewhere.member)), elsewhere.clinicId, 'Type 1'))).toBe('ok');
  });

  it('are 1 to 20 letters, digits, spaces and _+<>-, not starting with a space', async () => {
    const { clinicId, member } = await clinicOf();
    expect(await outcomeOf(tags.create(as(asUser(member)), clinicId, 'x'.repeat(20)))).toBe('ok');
    expect(await outcomeOf(tags.create(as(asUser(member)), clinicId, 'Ärzte <18> +1_a-b'))).toBe('ok');
    for (const name of ['', 'x'.repeat(21), ' leading', 'semi;colon'])
      await expect(tags.create(as(asUser(member)), clinicId, name)).rejects.toMatchObject({
        code: 'INVALID',
        details: { field: 'name' },
      });
  });

  it(`a clinic holds at most ${MAX_PATIENT_TAGS}: one more is a CONFLICT until one is deleted`, async () => {
    const { clinicId, admin } = await clinicOf();
    const created = [];
    for (let index = 0; index < MAX_PATIENT_TAGS; index += 1)
      created.push(await tags.create(as(asUser(admin)), clinicId, `Tag ${index}`));
    expect(await outcomeOf(tags.create(as(asUser(admin)), clinicId, 'One too many'))).toBe('CONFLICT');
    await tags.remove(as(asUser(admin)), clinicId, created[0].id);
    expect(await outcomeOf(tags.create(as(asUser(admin)), clinicId, 'One too many'))).toBe('ok');
  });
});

describe('deleting a tag', () => {
  it('takes it off every patient and leaves it as the clinic’s last deleted tag', async () => {
    const { clinicId, admin, patient } = await clinicOf();
    const [kept, gone] = [
      await tags.create(as(asUser(admin)), clinicId, 'Kept'),
      await tags.create(as(asUser(admin)), clinicId, 'Gone'),
    ];
    await world.database.query('update clinic_patients set tags = $1 where clinic_id = $2 and user_id = $3', [
      [kept.id, gone.id],
      clinicId,
      patient,
    ]);
    await tags.remove(as(asUser(admin)), clinicId, gone.id);
    const [row] = await world.database.query(
      'select p.tags, c.last_deleted_patient_tag from clinic_patients p join clinics c on c.id = p.clinic_id where p.clinic_id = $1',
      [clinicId],
    );
    expect(row).toEqual({ tags: [kept.id], last_deleted_patient_tag: { id: gone.id, name: 'Gone' } });
  });

  it('a tag of another clinic, or one already deleted, is NOT_FOUND and changes nothing', async () => {
    const { clinicId, admin } = await clinicOf();
    const elsewhere = await clinicOf();
    const foreign = await tags.create(as(asUser(elsewhere.admin)), elsewhere.clinicId, 'Foreign');
    expect(await outcomeOf(tags.remove(as(asUser(admin)), clinicId, foreign.id))).toBe('NOT_FOUND');
    expect(await outcomeOf(tags.rename(as(asUser(admin)), clinicId, foreign.id, 'Mine now'))).toBe('NOT_FOUND');
    expect(await tagNamesOf(elsewhere.clinicId)).toEqual(['Foreign']);
    await tags.remove(as(asUser(elsewhere.admin)), elsewhere.clinicId, foreign.id);
    expect(await outcomeOf(tags.remove(as(asUser(elsewhere.admin)), elsewhere.clinicId, foreign.id))).toBe('NOT_FOUND');
  });
});

describe('tags given to patients', () => {
  it('must be tags of the clinic: the first that is not is named by its place', async () => {
    const { clinicId, member } = await clinicOf();
    const elsewhere = await clinicOf();
    const ours = await tags.create(as(asUser(member)), clinicId, 'Ours');
    const theirs = await tags.create(as(asUser(elsewhere.member)), elsewhere.clinicId, 'Theirs');
    await expect(tags.assertTagsOf(as(AS_SERVER), clinicId, [ours.id])).resolves.toBeUndefined();
    await expect(tags.assertTagsOf(as(AS_SERVER), clinicId, [ours.id, theirs.id], 'tagIds')).rejects.toMatchObject({
      code: 'INVALID',
      message: expect.stringContaining('tagIds[1]'),
      details: { field: 'tagIds' },
    });
  });
});
