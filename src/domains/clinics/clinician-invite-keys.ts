import type { EntityManager } from '@mikro-orm/postgresql';
import type { MailRequester } from '../../infra/mail/mail';

/**
 * The mailed keys of clinician invitations; the confirmations domain keeps them (wired in
 * services.ts). A key proves its holder read the mail sent to the invited address.
 */
export interface ClinicianInviteKeys {
  /** Inside `tx`: mails a new key for the invitation to its address; earlier keys stop working. */
  mail(
    tx: EntityManager,
    invite: { inviteId: string; clinicId: string; clinicName: string; email: string },
    sentBy: string | null,
    requester: MailRequester,
  ): Promise<void>;
  /** Inside `tx`: `key` must be the invitation's latest key, unused and unexpired; it is used up. */
  redeem(tx: EntityManager, inviteId: string, key: string, status: 'completed' | 'declined'): Promise<void>;
  /** Inside `tx`: the invitation is gone; its keys stop working. */
  retire(tx: EntityManager, inviteId: string, email: string): Promise<void>;
}
