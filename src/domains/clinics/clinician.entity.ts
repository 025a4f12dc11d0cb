import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** The roles a clinician can hold; at least one, no repeats. */
export const CLINICIAN_ROLES = ['CLINIC_ADMIN', 'CLINIC_MEMBER', 'PRESCRIBER'] as const;
export type ClinicianRole = (typeof CLINICIAN_ROLES)[number];

/** A user who is a member of a clinic, with its roles there. */
export const ClinicianSchema = defineEntity({
  name: 'Clinician',
  tableName: 'clinicians',
  properties: {
    clinicId: p.string().primary().length(24),
    userId: p.string().primary().length(36).index(),
    email: p.text().nullable(),
    name: p.text().nullable(),
    roles: p.array<ClinicianRole>().columnType('text[]'),
    createdTime: p.datetime(),
    updatedTime: p.datetime(),
  },
});

export type ClinicianRecord = InferEntity<typeof ClinicianSchema>;

/**
 * An invitation to join a clinic, addressed to an email (stored lower-cased). Listed among the
 * clinic's clinicians with its `inviteId` until the owner of that email accepts or declines it,
 * or an admin revokes it.
 */
export const ClinicianInviteSchema = defineEntity({
  name: 'ClinicianInvite',
  tableName: 'clinician_invites',
  properties: {
    id: p.string().primary().length(24),
    clinicId: p.string().length(24),
    email: p.text().index(),
    name: p.text().nullable(),
    roles: p.array<ClinicianRole>().columnType('text[]'),
    createdTime: p.datetime(),
    updatedTime: p.datetime(),
  },
  uniques: [{ properties: ['clinicId', 'email'] }],
});

export type ClinicianInviteRecord = InferEntity<typeof ClinicianInviteSchema>;
