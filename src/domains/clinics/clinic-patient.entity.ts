import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { Permission } from '../permissions/permission.model';
import type { PatientDataSource } from './tide/data-sources';

/**
 * What a patient search matches: name, email and MRN in one lower-cased text, so one trigram
 * index serves a search over all three. The list queries use this exact expression (the planner
 * matches an expression index only on the same text).
 */
export const PATIENT_SEARCH_TEXT = `lower("full_name" || ' ' || coalesce("email", '') || ' ' || coalesce("mrn", ''))`;

/**
 * The sort expressions of the patient list, as the indexes hold them. Names sort ignoring case;
 * a missing birth date or review sorts lowest (first ascending, last descending, as Tidepool's
 * MongoDB orders nulls), and as a value rather than NULL it keeps keyset cursors simple.
 */
export const PATIENT_ORDER = {
  fullName: `lower("full_name")`,
  birthDate: `coalesce("birth_date", '-infinity'::date)`,
  lastReviewed: `coalesce("last_reviewed", '-infinity'::timestamptz)`,
} as const;

/** One review of a patient by a clinician. */
export interface PatientReview {
  clinicianId: string;
  time: string;
}

/**
 * A user who is a patient of a clinic: the clinic's record of that patient and the permissions
 * the patient granted the clinic (every clinician of the clinic acts with exactly those).
 */
export const ClinicPatientSchema = defineEntity({
  name: 'ClinicPatient',
  tableName: 'clinic_patients',
  properties: {
    clinicId: p.string().primary().length(24),
    userId: p.string().primary().length(36).index(),
    fullName: p.text(),
    birthDate: p.string().columnType('date').nullable(),
    email: p.text().nullable(),
    mrn: p.text().nullable(),
    tags: p.array().columnType('text[]'),
    permissions: p.array<Permission>().columnType('text[]'),
    /** Newest first, at most 10 kept. */
    reviews: p.json<PatientReview[]>(),
    lastReviewed: p.datetime().nullable(),
    /** The patient's cloud data sources as Tidepool's data-source worker reports them; null until reported. */
    dataSources: p.json<PatientDataSource[]>().nullable(),
    createdTime: p.datetime(),
    updatedTime: p.datetime(),
  },
  // Why each exists: migrations/Migration20261124183000_clinic_patient_indexes.ts.
  indexes: [
    {
      name: 'clinic_patients_search_trgm',
      expression: `create index "clinic_patients_search_trgm" on "clinic_patients" using gin ((${PATIENT_SEARCH_TEXT}) gin_trgm_ops)`,
    },
    {
      name: 'clinic_patients_full_name_order',
      expression: `create index "clinic_patients_full_name_order" on "clinic_patients" ("clinic_id", ${PATIENT_ORDER.fullName}, "user_id")`,
    },
    {
      name: 'clinic_patients_birth_date_order',
      expression: `create index "clinic_patients_birth_date_order" on "clinic_patients" ("clinic_id", ${PATIENT_ORDER.birthDate}, "user_id")`,
    },
    {
      name: 'clinic_patients_last_reviewed_order',
      expression: `create index "clinic_patients_last_reviewed_order" on "clinic_patients" ("clinic_id", ${PATIENT_ORDER.lastReviewed}, "user_id")`,
    },
    {
      name: 'clinic_patients_tags_gin',
      expression: 'create index "clinic_patients_tags_gin" on "clinic_patients" using gin ("tags")',
    },
  ],
});

export type ClinicPatientRecord = InferEntity<typeof ClinicPatientSchema>;

/** A clinic's patient tag; at most 50 per clinic, names unique within a clinic. */
export const PatientTagSchema = defineEntity({
  name: 'PatientTag',
  tableName: 'patient_tags',
  properties: {
    id: p.string().primary().length(24),
    clinicId: p.string().length(24).index(),
    name: p.text(),
    createdTime: p.datetime(),
  },
  indexes: [
    {
      name: 'patient_tags_clinic_id_name_unique',
      expression:
        'create unique index "patient_tags_clinic_id_name_unique" on "patient_tags" ("clinic_id", lower("name"))',
    },
  ],
});

export type PatientTagRecord = InferEntity<typeof PatientTagSchema>;

/**
 * A user's invitation to a clinic, sent through the clinic's share code with the permissions
 * the user chose; the clinic accepts it (the user becomes its patient) or it is revoked.
 */
export const PatientInviteSchema = defineEntity({
  name: 'PatientInvite',
  tableName: 'patient_invites',
  properties: {
    id: p.string().primary().length(24),
    clinicId: p.string().length(24).index(),
    userId: p.string().length(36).index(),
    permissions: p.array<Permission>().columnType('text[]'),
    createdTime: p.datetime(),
    updatedTime: p.datetime(),
  },
  uniques: [{ properties: ['clinicId', 'userId'] }],
});

export type PatientInviteRecord = InferEntity<typeof PatientInviteSchema>;
