import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, forbidden, invalid, notFound, unauthenticated } from '../../kernel/errors';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import { assertEmail, assertUserId } from '../../kernel/validation';
import type { AccessPolicy } from '../permissions/access-policy';
import { GRANTABLE_PERMISSIONS, type Permission } from '../permissions/permission.model';
import type { ConfirmationRecord, ConfirmationStatus } from './confirmation.entity';
import { careTeamInvitationMail } from './careteam-invitations.mail';
import { cancelClinicInvitations } from './confirmations.repository';
import type { ConfirmationStore } from './confirmations.store';
import type { InviteeAccounts } from './invitee-accounts';

const TYPES = ['careteam_invitation'] as const;

/** What an accepted invitation grants, and who made it (the grant is recorded as theirs). */
export interface InvitationContext {
  permissions: Permission[];
  /** The account that sent it: the sharer itself or one of its custodians. */
  sentBy: string | null;
  /** The clinic whose custodian grant let the sender act, if any: the grant ends with the clinic's backing. */
  clinicId: string | null;
}

/** A care-team invitation as its sharer and its invitee see it. */
export interface CareTeamInvitation {
  /** The public handle (Tidepool's `key` in lists); the secret key is only in the mail. */
  id: string;
  sharerId: string;
  email: string;
  permissions: Permission[];
  status: ConfirmationStatus;
  created: Date;
  modified: Date | null;
  expiresAt: Date;
  /** For the invitee: whether it may accept by the handle alone (it has verified the address). */
  canAccept: boolean;
}

/** What an accepted invitation does to grants: the permissions domain answers (wired in services.ts). */
export interface InvitationGrants {
  /** What `granteeId` already holds on `sharerId`'s data, null when nothing. */
  held(scope: Scope, granteeId: string, sharerId: string): Promise<readonly Permission[] | null>;
  /** Inside `tx`: `granteeId` now holds exactly `permissions` on `sharerId`'s data. */
  grant(tx: EntityManager, sharerId: string, granteeId: string, context: InvitationContext): Promise<void>;
}

const contextOf = (confirmation: ConfirmationRecord) => confirmation.context as unknown as InvitationContext;

const view = (confirmation: ConfirmationRecord, canAccept = false): CareTeamInvitation => ({
  id: confirmation.id,
  sharerId: confirmation.creatorId ?? '',
  email: confirmation.email,
  permissions: contextOf(confirmation).permissions,
  status: confirmation.status as ConfirmationStatus,
  created: confirmation.created,
  modified: confirmation.modified ?? null,
  expiresAt: confirmation.expiresAt,
  canAccept,
});

/** Permissions an invitation may offer: at least one grantable permission, each once. */
export function checkOffered(permissions: readonly string[]): Permission[] {
  const offered = [...new Set(permissions)];
  if (!offered.length) throw invalid('permissions must offer at least one permission', 'permissions');
  for (const name of offered)
    if (!(GRANTABLE_PERMISSIONS as readonly string[]).includes(name))
      throw invalid(
        `permissions: "${name}" cannot be offered (${GRANTABLE_PERMISSIONS.join(', ')} can)`,
        'permissions',
      );
  return GRANTABLE_PERMISSIONS.filter((name) => offered.includes(name));
}

/**
 * Care-team invitations by email (Tidepool hydrophone's share-by-email): an account (or its
 * custodian) offers permissions on its data to an address; a key is mailed there. Whoever
 * presents that key accepts (it proves the mail arrived), becoming a grantee with exactly the
 * permissions offered; an account that has verified the address may also accept or dismiss by
 * the listed handle. An address merely typed into an account proves nothing and claims nothing.
 */
export class CareTeamInvitationsService {
  constructor(
    private readonly store: ConfirmationStore,
    private readonly access: AccessPolicy,
    private readonly grants: InvitationGrants,
    private readonly accounts: InviteeAccounts,
    private readonly publicUrl: string,
  ) {}

  /** The sharer (or its custodian: an act on the account) invites `email`; the mail carries the key. */
  async send(
    scope: Scope,
    sharerId: string,
    input: { email: string; permissions: readonly string[] },
  ): Promise<CareTeamInvitation> {
    assertUserId(sharerId);
    const email = assertEmail(input.email, 'email').toLowerCase();
    const permissions = checkOffered(input.permissions);
    if (!isAuthenticated(scope.principal)) throw unauthenticated();
    const used = await this.access.grantUsed(scope, sharerId, 'account-control');
    if ((await this.accounts.verifiedAddresses(scope.em, sharerId)) === null)
      throw notFound(`User ${sharerId} not found`);
    const holder = await this.accounts.holderOf(scope.em, email);
    if (holder === sharerId) throw invalid('An account cannot invite itself: it already owns its data', 'email');
    if (holder && (await this.grants.held(scope, holder, sharerId)))
      throw conflict(`${email} already has access to the data of ${sharerId}`);
    const context: InvitationContext = {
      permissions,
      sentBy: scope.principal.userId,
      clinicId: used?.clinicId ?? null,
    };
    const created = await scope.em.transactional(async (tx) => {
      const [pending] = await this.store.list(tx, {
        types: TYPES,
        creatorId: sharerId,
        emails: [email],
        statuses: ['pending'],
      });
      if (pending && pending.expiresAt.getTime() > Date.now())
        throw conflict(`${email} already has a pending invitation from ${sharerId}`);
      if (pending) await this.store.settle(tx, pending, 'canceled');
      const { confirmation } = await this.store.create(
        tx,
        { type: 'careteam_invitation', email, creatorId: sharerId, userId: holder, context: { ...context } },
        (key) => careTeamInvitationMail(this.publicUrl, { key, email, sharerId, permissions }),
        { source: scope.remoteAddress },
      );
      return confirmation;
    });
    return view(created);
  }

  /** The invitations the sharer sent that are still pending: the sharer, its custodians, servers. */
  async sent(scope: Scope, sharerId: string): Promise<CareTeamInvitation[]> {
    assertUserId(sharerId);
    await this.access.assertAllowed(scope, sharerId, ['custodian']);
    const rows = await this.store.list(scope.em, { types: TYPES, creatorId: sharerId, statuses: ['pending'] });
    return rows.filter(unexpired).map((row) => view(row));
  }

  /**
   * The pending invitations addressed to an address the account has verified (the account
   * itself, or a server). Addresses it has not verified list nothing: their invitations are
   * reached through the key in the mail.
   */
  async received(scope: Scope, userId: string): Promise<CareTeamInvitation[]> {
    const addresses = await this.verifiedAddressesOf(scope, userId);
    if (!addresses.length) return [];
    const rows = await this.store.list(scope.em, { types: TYPES, emails: addresses, statuses: ['pending'] });
    return rows.filter(unexpired).map((row) => view(row, true));
  }

  /** The invitee accepts: it holds exactly the permissions offered on the sharer's data. */
  async accept(scope: Scope, userId: string, sharerId: string, key: string): Promise<CareTeamInvitation> {
    assertUserId(sharerId, 'invitedBy');
    const addresses = await this.verifiedAddressesOf(scope, userId);
    if (userId === sharerId) throw invalid('An account cannot accept its own invitation', 'userId');
    return scope.em.transactional(async (tx) => {
      const invitation = await this.answer(tx, sharerId, key, addresses, 'completed');
      await this.grants.grant(tx, sharerId, userId, contextOf(invitation));
      return view(invitation);
    });
  }

  /** The invitee dismisses (declines) the invitation. */
  async dismiss(scope: Scope, userId: string, sharerId: string, key: string): Promise<CareTeamInvitation> {
    assertUserId(sharerId, 'invitedBy');
    const addresses = await this.verifiedAddressesOf(scope, userId);
    return scope.em.transactional(async (tx) => view(await this.answer(tx, sharerId, key, addresses, 'declined')));
  }

  /** The sharer (or its custodian) withdraws its pending invitation of `email`. */
  async cancel(scope: Scope, sharerId: string, email: string): Promise<CareTeamInvitation> {
    assertUserId(sharerId);
    const address = assertEmail(email, 'email').toLowerCase();
    await this.access.assertAllowed(scope, sharerId, 'account-control');
    return scope.em.transactional(async (tx) => {
      const [pending] = await this.store.list(tx, {
        types: TYPES,
        creatorId: sharerId,
        emails: [address],
        statuses: ['pending'],
      });
      const locked = pending && (await this.store.pendingById(tx, TYPES, pending.id));
      if (!locked) throw notFound(`${sharerId} has no pending invitation of ${address}`);
      return view(await this.store.settle(tx, locked, 'canceled'));
    });
  }

  /**
   * Inside `tx`: the pending invitations sent through the clinic's access end when the clinic no
   * longer backs them, as the grants made through it do (PermissionsService.endClinicGrants):
   * those its leaving clinician sent, or those on its leaving patient's account.
   */
  async endClinicInvitations(
    tx: EntityManager,
    clinicId: string,
    leaving: { clinicianId: string } | { patientId: string },
  ): Promise<void> {
    await cancelClinicInvitations(tx, clinicId, leaving);
  }

  /**
   * Settles the sharer's pending invitation `key` opens: the key from the mail (any account that
   * has it), or the listed handle of one addressed to an address the account has verified.
   * Anything else, an invitation of another sharer or of another flow included, is NOT_FOUND.
   */
  private async answer(
    tx: EntityManager,
    sharerId: string,
    key: string,
    verified: readonly string[],
    status: 'completed' | 'declined',
  ): Promise<ConfirmationRecord> {
    const unknown = () => notFound(`No pending invitation from ${sharerId} matches this key`);
    const listed = await this.store.pendingById(tx, TYPES, key);
    // By the listed handle, only an invitation to an address the account has proved is its own.
    if (listed && !verified.includes(listed.email)) throw unknown();
    const found = listed ?? (await this.store.pending(tx, TYPES, key));
    if (found.creatorId !== sharerId) throw unknown();
    if (!unexpired(found)) throw notFound('This invitation has expired; ask for a new one');
    // Locked (pendingById): of two answers at once, one settles it, the other finds it answered.
    const locked = listed ?? (await this.store.pendingById(tx, TYPES, found.id));
    if (!locked) throw conflict('This invitation has already been answered');
    return this.store.settle(tx, locked, status);
  }

  /** The account's verified addresses: the account itself or a server may ask. */
  private async verifiedAddressesOf(scope: Scope, userId: string): Promise<string[]> {
    const { principal } = scope;
    if (!isAuthenticated(principal)) throw unauthenticated();
    assertUserId(userId);
    if (!principal.isServer && principal.userId !== userId) throw forbidden();
    const addresses = await this.accounts.verifiedAddresses(scope.em, userId);
    if (addresses === null) throw notFound(`User ${userId} not found`);
    return addresses;
  }
}

const unexpired = (confirmation: ConfirmationRecord) => confirmation.expiresAt.getTime() > Date.now();
