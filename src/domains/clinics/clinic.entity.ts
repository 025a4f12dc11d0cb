import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A clinic's patient tag as the clinic stores it: an id and a name. */
export interface PatientTagValue {
  id: string;
  name: string;
}

/** A clinic phone number: `type` (e.g. `main`, optional) and `number`. */
export interface PhoneNumber {
  type?: string;
  number: string;
}

/**
 * A clinic and its settings. `shareCode` is unique and stored in the canonical upper-case
 * form, so a lookup upper-cases what it is given.
 */
export const ClinicSchema = defineEntity({
  name: 'Clinic',
  tableName: 'clinics',
  properties: {
    id: p.string().primary().length(24),
    name: p.text(),
    address: p.text().nullable(),
    city: p.text().nullable(),
    postalCode: p.text().nullable(),
    state: p.text().nullable(),
    country: p.text().nullable(),
    phoneNumbers: p.json<PhoneNumber[]>(),
    clinicType: p.string().length(32).nullable(),
    clinicSize: p.string().length(16).nullable(),
    website: p.text().nullable(),
    preferredBgUnits: p.string().length(8),
    timezone: p.string().length(64).nullable(),
    suppressedNotifications: p.json<{ patientClinicInvitation?: boolean }>().nullable(),
    shareCode: p.string().length(16).unique(),
    canMigrate: p.boolean(),
    tier: p.string().length(32),
    tierDescription: p.text(),
    ehrEnabled: p.boolean(),
    lastDeletedPatientTag: p.json<PatientTagValue>().nullable(),
    createdTime: p.datetime().index(),
    updatedTime: p.datetime(),
  },
});

export type ClinicRecord = InferEntity<typeof ClinicSchema>;
