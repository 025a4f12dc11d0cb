import type { EntityManager } from '@mikro-orm/postgresql';
import type { MailRequester } from '../../infra/mail/mail';
import { conflict, notFound } from '../../kernel/errors';
import type { ConfirmationRecord } from './confirmation.entity';
import type { ConfirmationStore } from './confirmations.store';
import { invitationMail } from './invitation-mail';

const TYPES = ['clinician_invitation'] as const;

/** A clinician invitation as its mail needs it. */
export interface MailedClinicianInvite {
  inviteId: string;
  clinicId: string;
  clinicName: string;
  email: string;
}

const inviteOf = (confirmation: ConfirmationRecord) => (confirmation.context as { inviteId?: string }).inviteId;

/**
 * The mailed keys of clinician invitations: each invitation (and each resend) mails a new key
 * to the invited address, and only its latest key works. Presenting it proves the mail arrived,
 * which is what lets an account accept an invitation to an address it has not verified.
 */
export class ClinicianInvitationKeys {
  constructor(
    private readonly store: ConfirmationStore,
    private readonly publicUrl: string,
  ) {}

  /** Inside `tx`: a new key for the invitation, mailed to its address; its earlier keys stop working. */
  async mail(
    tx: EntityManager,
    invite: MailedClinicianInvite,
    sentBy: string | null,
    requester: MailRequester,
  ): Promise<void> {
    await this.retire(tx, invite.inviteId, invite.email);
    await this.store.create(
      tx,
      {
        type: 'clinician_invitation',
        email: invite.email,
        creatorId: sentBy,
        userId: null,
        context: { clinicId: invite.clinicId, inviteId: invite.inviteId },
      },
      (key) =>
        invitationMail({
          kind: 'clinician_invitation',
          to: invite.email,
          subject: `You are invited to join ${invite.clinicName}`,
          lead: `${invite.clinicName} invites you to join its clinic team on Islet.`,
          link: { baseUrl: this.publicUrl, path: '/confirm/clinician-invite', query: { inviteId: invite.inviteId } },
          key,
        }),
      requester,
    );
  }

  /**
   * Inside `tx`: settles the invitation's key as its answer (`completed` when accepted,
   * `declined`). The key must open the pending key of invitation `inviteId`: NOT_FOUND for an
   * unknown, expired or foreign key (another invitation's, another flow's); CONFLICT for one
   * already used.
   */
  async redeem(tx: EntityManager, inviteId: string, key: string, status: 'completed' | 'declined'): Promise<void> {
    const opened = await this.store.pending(tx, TYPES, key);
    if (inviteOf(opened) !== inviteId) throw notFound('No confirmation has this key');
    // Locked: of two answers at once, one settles it, the other finds it answered.
    const locked = await this.store.pendingById(tx, TYPES, opened.id);
    if (!locked) throw conflict('This invitation has already been answered');
    await this.store.settle(tx, locked, status);
  }

  /** Inside `tx`: the invitation was answered or revoked; its pending keys stop working. */
  async retire(tx: EntityManager, inviteId: string, email: string): Promise<void> {
    const pending = await this.store.list(tx, { types: TYPES, emails: [email], statuses: ['pending'] });
    for (const confirmation of pending.filter((each) => inviteOf(each) === inviteId))
      await this.store.settle(tx, confirmation, 'canceled');
  }
}
