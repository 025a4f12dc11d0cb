import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { Permission } from '../permissions/permission.model';

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
    createdTime: p.datetime(),
    updatedTime: p.datetime(),
  },
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
