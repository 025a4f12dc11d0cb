import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Mail, MailQueue, MailRequester } from '../../infra/mail/mail';
import { conflict, notFound } from '../../kernel/errors';
import { HEX_ID32_PATTERN, hexId } from '../../kernel/ids';
import type { ConfirmationRecord, ConfirmationStatus, ConfirmationType } from './confirmation.entity';
import { hashConfirmationKey, isConfirmationKey, newConfirmationKey } from './confirmation-keys';
import {
  cancelPendingConfirmations,
  confirmationByKeyHash,
  insertConfirmation,
  listConfirmations,
  newConfirmation,
  pendingConfirmationById,
  removeConfirmationsOf,
  saveConfirmationChanges,
  type ConfirmationFilter,
} from './confirmations.repository';

/** How long a key stays usable, in seconds, by what it confirms (settings; docs/confirmations.md). */
export interface ConfirmationLifetimes {
  signup: number;
  passwordReset: number;
  /** Care-team and clinician invitations (and invitations of addresses without an account). */
  invitation: number;
}

export function lifetimeOf(lifetimes: ConfirmationLifetimes, type: ConfirmationType): number {
  if (type === 'signup_confirmation') return lifetimes.signup;
  if (type === 'password_reset') return lifetimes.passwordReset;
  return lifetimes.invitation;
}

export interface NewConfirmation {
  type: ConfirmationType;
  email: string;
  creatorId: string | null;
  userId: string | null;
  context?: Record<string, unknown> | null;
}

/** The mail that carries a new confirmation's key (only the mail ever holds the key). */
export type ConfirmationMail = (key: string, confirmation: ConfirmationRecord) => Mail;

const UNKNOWN_KEY = 'No confirmation has this key';

/**
 * The confirmation store, shared by every flow that mails a key (sign-up verification, password
 * reset, invitations). It holds the rules every flow keeps: a key is random, mailed once and
 * stored only hashed; it is usable once, while pending and before it expires; a flow finds only
 * keys of its own types, so a key of another flow is refused exactly as an unknown one (404).
 * Callers pass their transaction: a confirmation and its mail are written with the action that
 * needs them, or not at all.
 */
export class ConfirmationStore {
  constructor(
    private readonly mail: MailQueue,
    private readonly lifetimes: ConfirmationLifetimes,
  ) {}

  /**
   * Writes a pending confirmation and enqueues its mail (rendered by `render` with the key) in
   * `tx`. Returns the key too, for callers that answer with it (never to the requester of a mail
   * that proves an address: that would skip the proof).
   */
  async create(
    tx: EntityManager,
    input: NewConfirmation,
    render: ConfirmationMail,
    requester: MailRequester,
  ): Promise<{ confirmation: ConfirmationRecord; key: string }> {
    const key = newConfirmationKey();
    const created = new Date();
    const confirmation = newConfirmation(tx, {
      id: hexId(32),
      keyHash: hashConfirmationKey(key),
      type: input.type,
      status: 'pending',
      email: input.email.toLowerCase(),
      creatorId: input.creatorId,
      userId: input.userId,
      context: input.context ?? null,
      created,
      modified: null,
      expiresAt: new Date(created.getTime() + lifetimeOf(this.lifetimes, input.type) * 1000),
    });
    // Written only once its mail is accepted: a refused mail (RATE_LIMITED) leaves nothing behind.
    await this.mail.enqueue(tx, render(key, confirmation), requester);
    await insertConfirmation(tx, confirmation);
    return { confirmation, key };
  }

  /**
   * The pending confirmation `key` opens among `types`: 404 when unknown, of another type,
   * malformed or expired; 409 when already completed, canceled or declined.
   */
  async pending(em: EntityManager, types: readonly ConfirmationType[], key: unknown): Promise<ConfirmationRecord> {
    return usable(await this.byKey(em, types, key));
  }

  /**
   * Completes the confirmation `key` opens (as `pending` judges it), inside `tx`: the row is
   * locked first, so of two uses at once one completes and the other gets 409. `check` may refuse
   * before anything changes (a reset's address must match).
   */
  async complete(
    tx: EntityManager,
    types: readonly ConfirmationType[],
    key: unknown,
    check?: (confirmation: ConfirmationRecord) => void,
  ): Promise<ConfirmationRecord> {
    const confirmation = usable(await this.byKey(tx, types, key, LockMode.PESSIMISTIC_WRITE));
    check?.(confirmation);
    return this.settle(tx, confirmation, 'completed');
  }

  /** A pending confirmation by its public id among `types`, locked in `tx` (null: none pending). */
  async pendingById(
    tx: EntityManager,
    types: readonly ConfirmationType[],
    id: string,
  ): Promise<ConfirmationRecord | null> {
    if (!HEX_ID32_PATTERN.test(id)) return null;
    return pendingConfirmationById(tx, types, id);
  }

  /** Ends a pending confirmation: `completed` (accepted), `canceled` (by its creator) or `declined` (dismissed). */
  async settle(
    tx: EntityManager,
    confirmation: ConfirmationRecord,
    status: Exclude<ConfirmationStatus, 'pending'>,
  ): Promise<ConfirmationRecord> {
    confirmation.status = status;
    confirmation.modified = new Date();
    await saveConfirmationChanges(tx);
    return confirmation;
  }

  /**
   * Cancels what is pending of `type` for an account or address (a new key replaces the old
   * ones: after a resend, or a new password, only the latest mail works). Returns how many.
   */
  async cancelPending(
    tx: EntityManager,
    type: ConfirmationType,
    of: { userId: string } | { email: string },
  ): Promise<number> {
    return cancelPendingConfirmations(tx, type, of);
  }

  /** Confirmations matching `filter`, newest first, at most MAX_LISTED_CONFIRMATIONS. */
  async list(em: EntityManager, filter: ConfirmationFilter): Promise<ConfirmationRecord[]> {
    return listConfirmations(em, filter);
  }

  /** A deleted account's confirmations go with it, made or received. */
  async forgetUser(em: EntityManager, userId: string): Promise<void> {
    await removeConfirmationsOf(em, userId);
  }

  private async byKey(
    em: EntityManager,
    types: readonly ConfirmationType[],
    key: unknown,
    lockMode?: LockMode,
  ): Promise<ConfirmationRecord> {
    const found = isConfirmationKey(key)
      ? await confirmationByKeyHash(em, types, hashConfirmationKey(key), lockMode)
      : null;
    if (!found) throw notFound(UNKNOWN_KEY);
    return found;
  }
}

function usable(confirmation: ConfirmationRecord): ConfirmationRecord {
  if (confirmation.status !== 'pending') throw conflict(`This confirmation is already ${confirmation.status}`);
  if (confirmation.expiresAt.getTime() <= Date.now())
    throw notFound('This confirmation has expired; ask for a new one');
  return confirmation;
}
