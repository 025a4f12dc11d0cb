import { describe, expect, it } from '@jest/globals';
import { expectMatchesTidepoolModel } from '../../test/support/openapi';
import { thrown } from '../../test/support/thrown';
import type { RestRequest } from '../route';
import { clinicInput, legacyClinic, legacyClinician } from './clinics';

/** A clinic as GraphQL answers CLINIC_FIELDS. */
const CLINIC = {
  id: '0123456789abcdef01234567',
  name: 'Riverside Diabetes Clinic',
  address: null,
  city: 'Springfield',
  postalCode: null,
  state: null,
  country: 'US',
  phoneNumbers: [{ type: 'main', number: '555-0101' }],
  clinicType: 'PROVIDER_PRACTICE',
  clinicSize: 'SIZE_1000_PLUS',
  website: null,
  preferredBgUnits: 'MG_DL',
  timezone: 'America/Chicago',
  suppressedNotifications: { patientClinicInvitation: null },
  shareCode: 'ABCD-EFGH-JKLM',
  canMigrate: false,
  tier: 'tier0100',
  tierDescription: 'Free',
  patientTags: [{ id: '0123456789abcdef01234568', name: 'T1D' }],
  lastDeletedPatientTag: null,
  createdTime: '2024-03-01T10:00:00.000Z',
  updatedTime: '2024-03-01T10:00:00.000Z',
};

const request = (body: unknown) => ({ body }) as RestRequest;

describe('clinics on the legacy wire', () => {
  it('legacyClinic: enums in their legacy strings, absent fields left out', async () => {
    const legacy = legacyClinic(CLINIC);
    expect(legacy).toEqual({
      id: CLINIC.id,
      name: CLINIC.name,
      city: 'Springfield',
      country: 'US',
      phoneNumbers: [{ type: 'main', number: '555-0101' }],
      clinicType: 'provider_practice',
      clinicSize: '1000+',
      preferredBgUnits: 'mg/dL',
      timezone: 'America/Chicago',
      suppressedNotifications: {},
      shareCode: 'ABCD-EFGH-JKLM',
      canMigrate: false,
      tier: 'tier0100',
      tierDescription: 'Free',
      patientTags: CLINIC.patientTags,
      createdTime: CLINIC.createdTime,
      updatedTime: CLINIC.updatedTime,
    });
    await expectMatchesTidepoolModel(legacy, 'clinic/models/clinic.v1.yaml');
  });

  it('legacyClinic leaves out empty phone numbers and unset enums (Tidepool wants at least one number when present)', () => {
    const legacy = legacyClinic({ ...CLINIC, phoneNumbers: [], clinicType: null, clinicSize: null });
    expect(legacy).not.toHaveProperty('phoneNumbers');
    expect(legacy).not.toHaveProperty('clinicType');
    expect(legacy).not.toHaveProperty('clinicSize');
  });

  it('clinicInput: legacy enum strings become GraphQL values; echoed response fields are ignored', () => {
    const input = clinicInput(
      request({
        id: 'x',
        shareCode: 'x',
        createdTime: 'x',
        name: 'Clinic',
        clinicType: 'healthcare_system',
        clinicSize: '0-249',
        preferredBgUnits: 'mmol/L',
      }),
    );
    expect(input).toEqual({
      name: 'Clinic',
      clinicType: 'HEALTHCARE_SYSTEM',
      clinicSize: 'SIZE_0_249',
      preferredBgUnits: 'MMOL_L',
    });
    expect(clinicInput(request({ name: 'Clinic', clinicType: null }))).toMatchObject({ clinicType: null });
  });

  it('clinicInput refuses a body that is not an object, a wrong type, a lone phone number and an unknown enum', () => {
    expect(thrown(() => clinicInput(request(undefined)))).toMatchObject({ code: 'INVALID' });
    expect(thrown(() => clinicInput(request({ name: 7 })))).toMatchObject({ message: '"name" must be a string' });
    expect(thrown(() => clinicInput(request({ phoneNumbers: { number: '1' } })))).toMatchObject({
      message: '"phoneNumbers" must be a list of phone numbers',
      details: { field: 'phoneNumbers' },
    });
    expect(thrown(() => clinicInput(request({ preferredBgUnits: 'MG_DL' })))).toMatchObject({
      message: 'preferredBgUnits must be one of mg/dL, mmol/L, not "MG_DL"',
    });
  });

  it('legacyClinician: the member’s account as id, without its clinic id, absent fields left out', async () => {
    const legacy = legacyClinician({
      clinicId: CLINIC.id,
      userId: '0123456789',
      inviteId: null,
      email: 'doc@example.org',
      name: 'Dr. Doc',
      roles: ['CLINIC_ADMIN'],
      createdTime: CLINIC.createdTime,
      updatedTime: CLINIC.updatedTime,
    });
    expect(legacy).toEqual({
      id: '0123456789',
      email: 'doc@example.org',
      name: 'Dr. Doc',
      roles: ['CLINIC_ADMIN'],
      createdTime: CLINIC.createdTime,
      updatedTime: CLINIC.updatedTime,
    });
    await expectMatchesTidepoolModel(legacy, 'clinic/models/clinician.v1.yaml');
  });
});
