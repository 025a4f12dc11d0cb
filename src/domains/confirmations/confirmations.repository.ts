import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import {
  ConfirmationSchema,
  type ConfirmationRecord,
  type ConfirmationStatus,
  type ConfirmationType,
} from './confirmation.entity';

/**
 * Every read and write of the confirmations domain's table (`confirmations`). The store and the
 * flows hold the rules; this holds the statements.
 */

export interface ConfirmationFilter {
  types: readonly ConfirmationType[];
  creatorId?: string;
  userId?: string;
  /** Addresses, any letter case. */
  emails?: readonly string[];
  statuses?: readonly ConfirmationStatus[];
}

/** Far above what anyone leaves pending; a list stops there. */
export const MAX_LISTED_CONFIRMATIONS = 1000;

/** A confirmation not yet written: `insertConfirmation` writes it. */
export function newConfirmation(tx: EntityManager, values: ConfirmationRecord): ConfirmationRecord {
  return tx.create(ConfirmationSchema, values, { persist: false });
}

/** Writes a confirmation made by `newConfirmation`. */
export async function insertConfirmation(tx: EntityManager, confirmation: ConfirmationRecord): Promise<void> {
  tx.persist(confirmation);
  await tx.flush();
}

/** Writes the changes made to the confirmations read in `tx`. */
export async function saveConfirmationChanges(tx: EntityManager): Promise<void> {
  await tx.flush();
}

/** The confirmation of one of `types` whose key hashes to `keyHash`; with `lockMode`, locked and read afresh. */
export function confirmationByKeyHash(
  em: EntityManager,
  types: readonly ConfirmationType[],
  keyHash: string,
  lockMode?: LockMode,
): Promise<ConfirmationRecord | null> {
  return em.findOne(
    ConfirmationSchema,
    { keyHash, type: { $in: [...types] } },
    lockMode === undefined ? {} : { lockMode, refresh: true },
  );
}

/** A pending confirmation by its public id among `types`, locked in `tx`. */
export function pendingConfirmationById(
  tx: EntityManager,
  types: readonly ConfirmationType[],
  id: string,
): Promise<ConfirmationRecord | null> {
  return tx.findOne(
    ConfirmationSchema,
    { id, type: { $in: [...types] }, status: 'pending' },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
}

/** Cancels the pending confirmations of `type` of an account or an address; how many. */
export function cancelPendingConfirmations(
  tx: EntityManager,
  type: ConfirmationType,
  of: { userId: string } | { email: string },
): Promise<number> {
  const whose = 'userId' in of ? { userId: of.userId } : { email: of.email.toLowerCase() };
  return tx.nativeUpdate(
    ConfirmationSchema,
    { type, status: 'pending', ...whose },
    { status: 'canceled', modified: new Date() },
  );
}

/** Confirmations matching `filter`, newest first, at most MAX_LISTED_CONFIRMATIONS. */
export function listConfirmations(em: EntityManager, filter: ConfirmationFilter): Promise<ConfirmationRecord[]> {
  return em.find(
    ConfirmationSchema,
    {
      type: { $in: [...filter.types] },
      ...(filter.creatorId === undefined ? {} : { creatorId: filter.creatorId }),
      ...(filter.userId === undefined ? {} : { userId: filter.userId }),
      ...(filter.emails === undefined ? {} : { email: { $in: filter.emails.map((email) => email.toLowerCase()) } }),
      ...(filter.statuses === undefined ? {} : { status: { $in: [...filter.statuses] } }),
    },
    { orderBy: { created: 'desc', id: 'asc' }, limit: MAX_LISTED_CONFIRMATIONS },
  );
}

/** The confirmations the account made or received. */
export async function removeConfirmationsOf(em: EntityManager, userId: string): Promise<void> {
  await em.nativeDelete(ConfirmationSchema, { $or: [{ creatorId: userId }, { userId }] });
}

/**
 * Cancels the clinic's pending care-team invitations: those its clinician sent through it, or
 * those on its patient's account.
 */
export async function cancelClinicInvitations(
  tx: EntityManager,
  clinicId: string,
  whose: { clinicianId: string } | { patientId: string },
): Promise<void> {
  const [condition, id] =
    'patientId' in whose ? ['creator_id = ?', whose.patientId] : ["context->>'sentBy' = ?", whose.clinicianId];
  await sqlOf(tx).run(
    `update confirmations set status = 'canceled', modified = now()
      where type = 'careteam_invitation' and status = 'pending' and context->>'clinicId' = ? and ${condition}`,
    [clinicId, id],
  );
}
