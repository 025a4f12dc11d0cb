import type { EntityManager } from '@mikro-orm/postgresql';
import { conflict, forbidden, notFound } from '../../kernel/errors';
import { hexId } from '../../kernel/ids';
import { isTimeAndIdKey, pageArgs, pageOf, type PagedList } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { assertUserId } from '../../kernel/validation';
import { assertSelfOrServer, type ClinicAccounts, type DatedAddress } from './clinic-accounts';
import { assertObjectId } from './clinic-ids';
import type { ClinicianInviteRecord, ClinicianRecord } from './clinician.entity';
import { clinicianCounts, clinicianKey, clinicianLoader, clinicianPages } from './clinicians.loaders';
import {
  countInvitesListedTo,
  deleteClaimableInvites,
  deleteInvite,
  deleteMember,
  deleteMembershipsOf,
  findInvite,
  hasMemberWithEmail,
  insertClinician,
  insertInvite,
  inviteOfClinic,
  invitesListedTo,
  lockMembers,
  touchInvite,
  updateMember,
  type ClinicianFilter,
  type ClinicianView,
  type InviteeAddresses,
} from './clinicians.repository';
import type { ClinicMemberships } from './clinician-memberships';
import { isUniqueViolation } from './patients.repository';
import { assertKeepsAnAdmin, checkInviteEmail, checkName, checkRoles, successorAdmin } from './clinician-rules';
import type { ClinicsService } from './clinics.service';
import type { ClinicianInviteKeys } from './clinician-invite-keys';
import type { ClinicRecord } from './clinic.entity';
import { assertClinicAccess, callerRoles, type BackingEndsHook } from './membership';

/** A clinician the internal endpoint creates: a member when `userId` is given, else an invitation. */
export interface NewClinician {
  userId?: string | null;
  email: string;
  name?: string | null;
  roles: readonly string[];
}

export interface ClinicianChanges {
  roles: readonly string[];
  name?: string | null;
}

/** Cursors of a clinic's clinician list: created time, then `m<userId>` or `i<inviteId>`. */
const isClinicianKey = isTimeAndIdKey(/^(m[0-9a-f-]{10,36}|i[0-9a-f]{24})$/);

const inviteView = (invite: ClinicianInviteRecord): ClinicianView => ({
  clinicId: invite.clinicId,
  userId: null,
  inviteId: invite.id,
  email: invite.email,
  name: invite.name ?? null,
  roles: invite.roles,
  createdTime: invite.createdTime,
  updatedTime: invite.updatedTime,
});

/**
 * Clinicians (spec §2.8, §4.10): a clinic's members with their roles, and the invitations that
 * make new ones. Reading needs CLINIC_MEMBER or CLINIC_ADMIN, changing CLINIC_ADMIN; server
 * tokens may do everything. A clinic always keeps a CLINIC_ADMIN.
 */
export class CliniciansService {
  private readonly backingEnds: BackingEndsHook[] = [];

  constructor(
    private readonly clinics: ClinicsService,
    private readonly accounts: ClinicAccounts,
    private readonly keys: ClinicianInviteKeys,
    private readonly memberships: ClinicMemberships,
  ) {}

  /** Registers what must end with a clinician's membership (what it made or got through the clinic). */
  onBackingEnds(hook: BackingEndsHook): void {
    this.backingEnds.push(hook);
  }

  /** A page of the clinic's clinicians, members and invitations, oldest first. */
  async list(
    scope: Scope,
    clinicId: string,
    filter: ClinicianFilter,
    first?: number | null,
    after?: string | null,
    offset?: number | null,
  ): Promise<PagedList<ClinicianView>> {
    const clinic = await this.clinics.find(scope, clinicId);
    const checked = { ...filter, email: filter.email ? checkInviteEmail(filter.email) : null };
    const list = `clinicians:${clinic.id}:${JSON.stringify(checked)}`;
    const args = pageArgs(list, first, after, isClinicianKey, offset);
    await assertClinicAccess(scope, clinic.id, 'read');
    const rows = await clinicianPages(scope, checked, args).load(clinic.id);
    return {
      page: pageOf(list, args, rows, clinicianKey),
      count: () => clinicianCounts(scope, checked).load(clinic.id),
    };
  }

  /** One member; its clinic's members and admins, the clinician itself and servers may read it. */
  async get(scope: Scope, clinicId: string, userId: string): Promise<ClinicianView> {
    const clinic = await this.clinics.find(scope, clinicId);
    assertUserId(userId, 'clinicianId');
    if (scope.principal.userId !== userId) await assertClinicAccess(scope, clinic.id, 'read');
    const clinician = await clinicianLoader(scope).load(`${clinic.id}:${userId}`);
    if (!clinician) throw notFound(`User ${userId} is not a clinician of clinic ${clinic.id}`);
    return clinician;
  }

  /**
   * The internal endpoint (server tokens only): adds an existing account as a member, or
   * without `userId` invites the email. A duplicate is a CONFLICT.
   */
  async create(scope: Scope, clinicId: string, input: NewClinician): Promise<ClinicianView> {
    const clinic = await this.clinics.find(scope, clinicId);
    if (!scope.principal.isServer) throw forbidden('Only a server token may create clinicians directly');
    if (input.userId === null || input.userId === undefined) return this.addInvite(scope, clinic, input);
    const userId = assertUserId(input.userId, 'id');
    const email = checkInviteEmail(input.email);
    const roles = checkRoles(input.roles);
    const name = checkName(input.name);
    if (!(await this.accounts.existing(scope, [userId])).has(userId)) throw notFound(`User ${userId} does not exist`);
    const now = new Date();
    const row = { clinicId: clinic.id, userId, email, name, roles, createdTime: now, updatedTime: now };
    await this.insertMember(scope.em, row);
    return { ...row, inviteId: null };
  }

  /** Changes a member's roles (and name); admins and servers. The last admin stays one. */
  async update(scope: Scope, clinicId: string, userId: string, changes: ClinicianChanges): Promise<ClinicianView> {
    const clinic = await this.clinics.find(scope, clinicId);
    assertUserId(userId, 'clinicianId');
    await assertClinicAccess(scope, clinic.id, 'admin');
    const roles = checkRoles(changes.roles);
    const name = checkName(changes.name);
    const updated = await scope.em.transactional(async (tx) => {
      const current = await lockMembers(tx, clinic.id);
      if (!current.some((clinician) => clinician.userId === userId))
        throw notFound(`User ${userId} is not a clinician of clinic ${clinic.id}`);
      assertKeepsAnAdmin(current, { userId, roles });
      const updatedTime = new Date();
      const row = await updateMember(tx, clinic.id, userId, { roles, updatedTime, ...(name === null ? {} : { name }) });
      return { ...row, email: row.email ?? null, name: row.name ?? null, inviteId: null };
    });
    this.forgetRoles(scope, clinic.id, userId);
    return updated;
  }

  /** Removes a member: admins, servers, and the clinician itself (leaving). Never the last admin. */
  async remove(scope: Scope, clinicId: string, userId: string): Promise<void> {
    const clinic = await this.clinics.find(scope, clinicId);
    assertUserId(userId, 'clinicianId');
    if (scope.principal.userId !== userId) await assertClinicAccess(scope, clinic.id, 'admin');
    await scope.em.transactional(async (tx) => {
      const current = await lockMembers(tx, clinic.id);
      if (!current.some((clinician) => clinician.userId === userId))
        throw notFound(`User ${userId} is not a clinician of clinic ${clinic.id}`);
      assertKeepsAnAdmin(current, { userId, roles: null });
      await deleteMember(tx, clinic.id, userId);
      for (const hook of this.backingEnds) await hook(tx, clinic.id, userId);
    });
    this.forgetRoles(scope, clinic.id, userId);
  }

  /** An admin (or a server) invites an email with roles; listed as a clinician until answered. */
  async invite(
    scope: Scope,
    clinicId: string,
    input: { email: string; roles: readonly string[]; name?: string | null },
  ): Promise<ClinicianView> {
    const clinic = await this.clinics.find(scope, clinicId);
    await assertClinicAccess(scope, clinic.id, 'admin');
    return this.addInvite(scope, clinic, input);
  }

  /**
   * Sends an invitation again: a new key is mailed (the earlier ones stop working) and its
   * `updatedTime` is renewed.
   */
  async resendInvite(scope: Scope, clinicId: string, inviteId: string): Promise<ClinicianView> {
    const invite = await this.findInvite(scope, clinicId, inviteId, 'admin');
    const clinic = await this.clinics.find(scope, invite.clinicId);
    const updatedTime = new Date();
    await scope.em.transactional(async (tx) => {
      await touchInvite(tx, invite.id, updatedTime);
      await this.mailKey(scope, tx, clinic, invite);
    });
    return { ...inviteView(invite), updatedTime };
  }

  /** Withdraws an invitation not yet answered: admins and servers. Its mailed key stops working. */
  async revokeInvite(scope: Scope, clinicId: string, inviteId: string): Promise<void> {
    const invite = await this.findInvite(scope, clinicId, inviteId, 'admin');
    await scope.em.transactional(async (tx) => {
      await deleteInvite(tx, invite.id);
      await this.keys.retire(tx, invite.id, invite.email);
    });
  }

  /** An invitation as its clinic lists it: members, admins and servers may read it. */
  async getInvite(scope: Scope, clinicId: string, inviteId: string): Promise<ClinicianView> {
    return inviteView(await this.findInvite(scope, clinicId, inviteId, 'read'));
  }

  /**
   * The invitations addressed to an address of the account that it has verified, or that it
   * held when they were sent (claimableBy), oldest first: for the user and servers.
   */
  async invitesFor(
    scope: Scope,
    userId: string,
    first?: number | null,
    after?: string | null,
  ): Promise<PagedList<ClinicianView>> {
    const addresses = await this.addressesOf(scope, userId);
    const listed = (invite: ClinicianInviteRecord) => ({
      ...inviteView(invite),
      canAccept: addresses.verified.includes(invite.email),
    });
    const list = `clinicianInvites:${userId}`;
    const args = pageArgs(list, first, after, isClinicianKey);
    const rows = await invitesListedTo(scope.em, addresses, args.first, args.after);
    return {
      page: pageOf(list, args, rows.map(listed), clinicianKey),
      count: () => countInvitesListedTo(scope.em, addresses),
    };
  }

  /**
   * The user accepts an invitation: it becomes a member with the invited roles. It proves the
   * invitation is its own with the key from the invitation's mail, or without a key by having
   * verified the invited address (see answerable).
   */
  async acceptInvite(scope: Scope, userId: string, inviteId: string, key?: string | null): Promise<ClinicianView> {
    const invite = await this.answerable(scope, userId, inviteId, key);
    const now = new Date();
    const row = {
      clinicId: invite.clinicId,
      userId,
      email: invite.email,
      name: invite.name ?? null,
      roles: invite.roles,
      createdTime: now,
      updatedTime: now,
    };
    await scope.em.transactional(async (tx) => {
      // Revoked or answered meanwhile: the invitation is gone, and so is the membership it offered.
      await this.settle(tx, invite, key, 'completed');
      await this.insertMember(tx, row);
    });
    this.forgetRoles(scope, invite.clinicId, userId);
    return { ...row, inviteId: null };
  }

  /** The user declines an invitation, proving it is its own as acceptInvite does; it is gone. */
  async declineInvite(scope: Scope, userId: string, inviteId: string, key?: string | null): Promise<void> {
    const invite = await this.answerable(scope, userId, inviteId, key);
    await scope.em.transactional((tx) => this.settle(tx, invite, key, 'declined'));
  }

  /**
   * Account deletion, inside its transaction: the account's memberships and the invitations it
   * could claim (claimableBy) go; those sent to one of its addresses before it held it stay for
   * their invitee. Where it was a clinic's last admin, the clinician who joined first among
   * those left becomes CLINIC_ADMIN (successorAdmin).
   */
  async forgetUser(scope: Scope, userId: string, addresses: readonly DatedAddress[]): Promise<void> {
    for (const clinicId of await deleteMembershipsOf(scope.em, userId)) {
      const successor = successorAdmin(await lockMembers(scope.em, clinicId));
      if (successor)
        await updateMember(scope.em, clinicId, successor.userId, {
          roles: ['CLINIC_ADMIN', ...(successor.roles ?? [])],
          updatedTime: new Date(),
        });
    }
    if (addresses.length) await deleteClaimableInvites(scope.em, addresses);
  }

  private async addInvite(
    scope: Scope,
    clinic: ClinicRecord,
    input: { email: string; roles: readonly string[]; name?: string | null },
  ): Promise<ClinicianView> {
    const clinicId = clinic.id;
    const email = checkInviteEmail(input.email);
    const roles = checkRoles(input.roles);
    const name = checkName(input.name);
    if (await hasMemberWithEmail(scope.em, clinicId, email))
      throw conflict(`${email} is already a clinician of this clinic`);
    const now = new Date();
    const invite = { id: hexId(24), clinicId, email, name, roles, createdTime: now, updatedTime: now };
    try {
      await scope.em.transactional(async (tx) => {
        await insertInvite(tx, invite);
        await this.mailKey(scope, tx, clinic, invite);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`${email} is already invited to this clinic`);
      throw error;
    }
    return inviteView(invite as ClinicianInviteRecord);
  }

  /** Inside `tx`: mails the invitation's key to its address, as sent by the caller. */
  private async mailKey(scope: Scope, tx: EntityManager, clinic: ClinicRecord, invite: { id: string; email: string }) {
    await this.keys.mail(
      tx,
      { inviteId: invite.id, clinicId: clinic.id, clinicName: clinic.name, email: invite.email },
      scope.principal.userId,
      { source: scope.remoteAddress },
    );
  }

  /**
   * Inside `tx`: the invitation is answered. It must still be there (revoked or answered
   * meanwhile, it is gone, and so is what it offered); the key it was answered with is used up,
   * and without one its keys stop working.
   */
  private async settle(
    tx: EntityManager,
    invite: ClinicianInviteRecord,
    key: string | null | undefined,
    status: 'completed' | 'declined',
  ): Promise<void> {
    if (key) await this.keys.redeem(tx, invite.id, key, status);
    else await this.keys.retire(tx, invite.id, invite.email);
    if (!(await deleteInvite(tx, invite.id))) throw notFound(`Invite ${invite.id} does not exist`);
  }

  private async insertMember(em: EntityManager, row: ClinicianRecord): Promise<void> {
    this.memberships.joining(row.userId);
    try {
      await insertClinician(em, row);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`User ${row.userId} is already a clinician of this clinic`);
      throw error;
    }
  }

  private async findInvite(
    scope: Scope,
    clinicId: string,
    inviteId: string,
    access: 'read' | 'admin',
  ): Promise<ClinicianInviteRecord> {
    const clinic = await this.clinics.find(scope, clinicId);
    assertObjectId(inviteId, 'inviteId');
    await assertClinicAccess(scope, clinic.id, access);
    const invite = await inviteOfClinic(scope.em, clinic.id, inviteId);
    if (!invite) throw notFound(`Invite ${inviteId} of clinic ${clinic.id} does not exist`);
    return invite;
  }

  /**
   * An invitation the user may answer. With the key from its mail, any invitation (the key is
   * checked when it is used up); without one, an invitation listed to the user (listedTo) whose
   * address it has verified. One listed to it by an address it holds but has not verified is
   * FORBIDDEN (verify it, or use the key); any other does not exist for it.
   */
  private async answerable(
    scope: Scope,
    userId: string,
    inviteId: string,
    key: string | null | undefined,
  ): Promise<ClinicianInviteRecord> {
    const addresses = await this.addressesOf(scope, userId);
    assertObjectId(inviteId, 'inviteId');
    const invite = await findInvite(scope.em, inviteId, key ? null : addresses);
    if (!invite) throw notFound(`Invite ${inviteId} for user ${userId} does not exist`);
    if (!key && !addresses.verified.includes(invite.email))
      throw forbidden(`Verify ${invite.email} first, or accept with the key from the invitation's mail`);
    return invite;
  }

  private async addressesOf(scope: Scope, userId: string): Promise<InviteeAddresses> {
    assertSelfOrServer(scope, userId);
    const [dated, verified] = await Promise.all([
      this.accounts.datedAddresses(scope, userId),
      this.accounts.verifiedAddresses(scope, userId),
    ]);
    if (!dated || !verified) throw notFound(`User ${userId} does not exist`);
    return { dated, verified };
  }

  private forgetRoles(scope: Scope, clinicId: string, userId: string): void {
    callerRoles(scope, userId).clear(clinicId);
    clinicianLoader(scope).clear(`${clinicId}:${userId}`);
  }
}
