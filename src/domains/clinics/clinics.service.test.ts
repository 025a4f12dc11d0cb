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
import { MAX_PHONE_NUMBERS, MAX_TEXT_LENGTH, type ClinicFields } from './clinic-fields';
import type { ClinicsService } from './clinics.service';

let world: DomainWorld;
let clinics: ClinicsService;

beforeAll(async () => {
  world = await startDomainWorld();
  clinics = world.services.clinics;
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);
const FIELDS: ClinicFields = { name: 'Sunny Clinic', preferredBgUnits: 'MG_DL' };

/** A clinic created by its admin, with a member and a prescriber added by a server. */
const clinicOf = () => world.staffedClinic(FIELDS);

describe('creating a clinic', () => {
  it('makes its creator its only admin, on the free tier, with a share code', async () => {
    const creator = await world.account();
    const clinic = await clinics.create(as(asUser(creator)), FIELDS);
    expect(clinic).toMatchObject({ name: 'Sunny Clinic', preferredBgUnits: 'MG_DL', tier: 'tier0100' });
    expect(clinic.shareCode).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    const { page } = await world.services.clinicians.list(as(AS_SERVER), clinic.id, {});
    expect(page.nodes.map((clinician) => [clinician.userId, clinician.roles])).toEqual([[creator, ['CLINIC_ADMIN']]]);
    expect((await clinics.ofUser(as(asUser(creator)), creator)).page.nodes.map((mine) => mine.id)).toEqual([clinic.id]);
  });

  it('takes a user: a server or a client without an account is FORBIDDEN, anonymous must log in', async () => {
    expect(await outcomeOf(clinics.create(as(AS_SERVER), FIELDS))).toBe('FORBIDDEN');
    expect(await outcomeOf(clinics.create(as(AS_CLIENT), FIELDS))).toBe('FORBIDDEN');
    expect(await outcomeOf(clinics.create(as(ANONYMOUS), FIELDS))).toBe('UNAUTHENTICATED');
  });

  it('requires a name of 1 to MAX_TEXT_LENGTH characters', async () => {
    const creator = asUser(await world.account());
    for (const name of ['', '   ', 'x'.repeat(MAX_TEXT_LENGTH + 1), undefined as unknown as string])
      await expect(clinics.create(as(creator), { ...FIELDS, name })).rejects.toMatchObject({
        code: 'INVALID',
        details: { field: 'name' },
      });
    expect((await clinics.create(as(creator), { ...FIELDS, name: 'x'.repeat(MAX_TEXT_LENGTH) })).name).toHaveLength(
      MAX_TEXT_LENGTH,
    );
  });
  it('checks its other fields, each refusal naming the field, and keeps what is valid', async () => {
    const creator = asUser(await world.account());
    const phones = (count: number) => Array.from({ length: count }, (_, index) => ({ number: `+33 1 ${index}` }));
    const refused: [Partial<ClinicFields>, string][] = [
      [{ phoneNumbers: [] }, 'phoneNumbers'],
      [{ phoneNumbers: phones(MAX_PHONE_NUMBERS + 1) }, 'phoneNumbers'],
      [{ phoneNumbers: [{ number: '1' }, { number: '1' }] }, 'phoneNumbers'],
      [{ website: 'clinic.example' }, 'website'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ preferredBgUnits: 'mg/dL' as ClinicFields['preferredBgUnits'] }, 'preferredBgUnits'],
      [{ clinicType: 'HOSPITAL' as ClinicFields['clinicType'] }, 'clinicType'],
    ];
    for (const [fields, field] of refused)
      await expect(clinics.create(as(creator), { ...FIELDS, ...fields })).rejects.toMatchObject({
        code: 'INVALID',
        details: { field },
      });
    const clinic = await clinics.create(as(creator), {
      ...FIELDS,
      phoneNumbers: phones(MAX_PHONE_NUMBERS),
      website: 'https://clinic.example',
      timezone: 'Europe/Paris',
    });
    expect(clinic.phoneNumbers).toHaveLength(MAX_PHONE_NUMBERS);
    expect(clinic).toMatchObject({ website: 'https://clinic.example', timezone: 'Europe/Paris', address: null });
  });
});

describe('finding a clinic by its share code', () => {
  it('any signed-in caller finds it in any letter case; an unknown or malformed code is NOT_FOUND', async () => {
    const { clinic, outsider } = await clinicOf();
    expect((await clinics.byShareCode(as(asUser(outsider)), clinic.shareCode.toLowerCase())).id).toBe(clinic.id);
    expect((await clinics.byShareCode(as(AS_SERVER), clinic.shareCode)).id).toBe(clinic.id);
    expect(await outcomeOf(clinics.byShareCode(as(asUser(outsider)), 'AAAA-BBBB-CCCC'))).toBe('NOT_FOUND');
    expect(await outcomeOf(clinics.byShareCode(as(asUser(outsider)), 'not a code'))).toBe('NOT_FOUND');
    expect(await outcomeOf(clinics.byShareCode(as(ANONYMOUS), clinic.shareCode))).toBe('UNAUTHENTICATED');
  });

  it('the clinic list filtered by a share code shows that one clinic to a user who is not its member', async () => {
    const { clinic, outsider } = await clinicOf();
    const { page } = await clinics.list(
      as(asUser(outsider)),
      { shareCode: clinic.shareCode.toLowerCase() },
      null,
      null,
    );
    expect(page.nodes.map((found) => found.id)).toEqual([clinic.id]);
  });
});

describe('who may read and change a clinic', () => {
  it('every clinician, whatever its role, and servers read it; an outsider is FORBIDDEN', async () => {
    const { clinic, admin, member, prescriber, outsider } = await clinicOf();
    for (const reader of [asUser(admin), asUser(member), asUser(prescriber), AS_SERVER])
      expect((await clinics.get(as(reader), clinic.id)).id).toBe(clinic.id);
    expect(await outcomeOf(clinics.get(as(asUser(outsider)), clinic.id))).toBe('FORBIDDEN');
    expect(await outcomeOf(clinics.get(as(AS_CLIENT), clinic.id))).toBe('FORBIDDEN');
  });

  it('admins and servers replace its fields; a member or prescriber may not', async () => {
    const { clinic, admin, member, prescriber } = await clinicOf();
    for (const caller of [member, prescriber])
      expect(await outcomeOf(clinics.update(as(asUser(caller)), clinic.id, { ...FIELDS, name: 'Mine' }))).toBe(
        'FORBIDDEN',
      );
    const renamed = await clinics.update(as(asUser(admin)), clinic.id, {
      ...FIELDS,
      name: 'Renamed',
      city: 'Lyon',
    });
    expect(renamed).toMatchObject({ name: 'Renamed', city: 'Lyon', shareCode: clinic.shareCode });
    await clinics.update(as(AS_SERVER), clinic.id, { ...FIELDS, name: 'By server' });
    const reread = await clinics.get(as(asUser(member)), clinic.id);
    expect(reread).toMatchObject({ name: 'By server', city: null });
  });

  it('an update is checked as a creation is', async () => {
    const { clinic, admin } = await clinicOf();
    await expect(clinics.update(as(asUser(admin)), clinic.id, { ...FIELDS, name: '' })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'name' },
    });
    expect((await clinics.get(as(asUser(admin)), clinic.id)).name).toBe(FIELDS.name);
  });

  it('an unknown clinic is NOT_FOUND to anyone, a malformed id INVALID', async () => {
    const { admin } = await clinicOf();
    expect(await outcomeOf(clinics.get(as(asUser(admin)), 'f'.repeat(24)))).toBe('NOT_FOUND');
    expect(await outcomeOf(clinics.update(as(AS_SERVER), 'f'.repeat(24), FIELDS))).toBe('NOT_FOUND');
    expect(await outcomeOf(clinics.get(as(asUser(admin)), 'nope'))).toBe('INVALID');
  });
});

describe('listing clinics', () => {
  it('a user lists the clinics it is a clinician of; another user may not list them for it', async () => {
    const { clinic, prescriber, outsider } = await clinicOf();
    const { page } = await clinics.list(as(asUser(prescriber)), {}, null, null);
    expect(page.nodes.map((mine) => mine.id)).toEqual([clinic.id]);
    expect((await clinics.list(as(asUser(outsider)), {}, null, null)).page.nodes).toEqual([]);
    expect(await outcomeOf(clinics.ofUser(as(asUser(outsider)), prescriber))).toBe('FORBIDDEN');
  });
});
