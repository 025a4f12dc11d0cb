import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** What a confirmation is for: Tidepool's confirmation types (confirm/models/confirmation-type.v1.yaml). */
export const CONFIRMATION_TYPES = [
  'password_reset',
  'careteam_invitation',
  'clinician_invitation',
  'signup_confirmation',
  'no_account',
] as const;
export type ConfirmationType = (typeof CONFIRMATION_TYPES)[number];

/** Tidepool's confirmation states (confirm/models/status.v1.yaml); only `pending` can still be acted on. */
export const CONFIRMATION_STATUSES = ['pending', 'completed', 'canceled', 'declined'] as const;
export type ConfirmationStatus = (typeof CONFIRMATION_STATUSES)[number];

/**
 * One confirmation: something an email address is asked to confirm (its own sign-up, a password
 * reset, an invitation) by presenting the secret key that was mailed to it. The key itself is
 * never stored, only its SHA-256 (`keyHash`), so a copy of the database cannot complete anything.
 * `id` is a public handle (32 hex characters) for the parties that may list the confirmation.
 */
export const ConfirmationSchema = defineEntity({
  name: 'Confirmation',
  tableName: 'confirmations',
  properties: {
    id: p.string().primary().length(32),
    keyHash: p.string().length(64).unique(),
    type: p.string().length(32),
    status: p.string().length(16),
    /** The address the key was mailed to, lower-cased. */
    email: p.text(),
    /** The account that asked for it (the account itself for sign-up and password reset). */
    creatorId: p.string().length(10).nullable().index(),
    /** The account it is about or addressed to, when there is one. */
    userId: p.string().length(10).nullable().index(),
    /** What the confirmation carries for its type (an invitation's permissions, a clinic), as JSON. */
    context: p.json<Record<string, unknown>>().nullable(),
    created: p.datetime(),
    modified: p.datetime().nullable(),
    expiresAt: p.datetime(),
  },
  indexes: [{ properties: ['email', 'type', 'status'] }],
});

export type ConfirmationRecord = InferEntity<typeof ConfirmationSchema>;
