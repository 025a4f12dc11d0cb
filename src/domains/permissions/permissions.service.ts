import type { EntityManager } from '@mikro-orm/postgresql';
import { invalid, notFound, unauthenticated } from '../../kernel/errors';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import { assertUserId, USER_ID_PATTERN } from '../../kernel/validation';
import type { AccessPolicy } from './access-policy';
import { GRANTABLE_PERMISSIONS, type Permission } from './permission.model';
import { grantCounts, grantPages } from './permissions.loaders';
import {
  removeClinicGrants,
  removeGrant,
  removeGrantsOfUser,
  saveGrant,
  type GrantRow,
} from './permissions.repository';
import { pageArgs, pageOf, type PagedList, type SortKey } from '../../kernel/paging';
import type { AccountsExist } from '../../kernel/accounts';
import type { ReceivedGrants } from './received-grants';

/** A permission name as the wire shows it: the grantable ones, plus `root` for the owner. */
export type PermissionName = Permission | 'root';

/** One entry of a permission group: another user and what the sharer lets it do. */
export interface Share {
  userId: string;
  permissions: PermissionName[];
}

/** Grants an account gave (its group members) or received (the groups it can access). */
type Side = 'given' | 'received';

const OWNER: PermissionName[] = ['root'];
const ORDER: readonly PermissionName[] = ['root', ...GRANTABLE_PERMISSIONS];
const sorted = (names: Iterable<PermissionName>) =>
  [...new Set(names)].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));

/** The identity of a share list in its cursors: a cursor of one account's list fits no other. */
const listOf = (side: Side, userId: string) => `shares:${side}:${userId}`;

/** A share list is ordered by the other account's id. */
const isShareKey = (key: SortKey) => key.length === 1 && typeof key[0] === 'string' && USER_ID_PATTERN.test(key[0]);

/** A grant as seen from one side: the other account and what the grant holds. */
const shareOf = (row: GrantRow, side: Side): Share => ({
  userId: side === 'given' ? row.grantee_id : row.sharer_id,
  permissions: sorted(row.permissions),
});

export class PermissionsService {
  /** `received`: the grants accounts received, kept between requests to list them (ReceivedGrants). */
  constructor(
    private readonly access: AccessPolicy,
    private readonly accountsExist: AccountsExist,
    private readonly received: ReceivedGrants | null = null,
  ) {}

  /**
   * The groups `userId` can access, a page at a time: every sharer that granted it something, by
   * sharer id. Its own group (where it is owner, `root`) is not listed. The account, its
   * custodians and servers may ask.
   */
  async groupsOf(
    scope: Scope,
    userId: string,
    first?: number | null,
    after?: string | null,
  ): Promise<PagedList<Share>> {
    assertUserId(userId);
    const args = pageArgs(listOf('received', userId), first, after, isShareKey);
    await this.access.assertAllowed(scope, userId, ['custodian']);
    return this.sharesPage(scope, 'received', userId, args);
  }

  /**
   * Who can access `sharerId`'s data, a page at a time: every grantee, by grantee id; the sharer
   * itself (owner, `root`) is not listed. The sharer, its custodians and servers may ask.
   */
  async membersOf(
    scope: Scope,
    sharerId: string,
    first?: number | null,
    after?: string | null,
  ): Promise<PagedList<Share>> {
    assertUserId(sharerId, 'sharerId');
    const args = pageArgs(listOf('given', sharerId), first, after, isShareKey);
    await this.access.assertAllowed(scope, sharerId, ['custodian']);
    return this.sharesPage(scope, 'given', sharerId, args);
  }

  /** What `userId` may do with `sharerId`'s data (directly or through its clinics); null when it holds nothing. */
  async permissionsOf(scope: Scope, sharerId: string, userId: string): Promise<PermissionName[] | null> {
    assertUserId(sharerId, 'sharerId');
    assertUserId(userId);
    const involved = scope.principal.userId === userId;
    if (!involved) await this.access.assertAllowed(scope, sharerId, ['custodian']);
    if (sharerId === userId) return OWNER;
    // Direct grants and those reaching the user through its clinics, merged as gatekeeper's userInGroup does.
    const held = await this.access.heldBy(scope, userId, sharerId);
    return held ? sorted(held) : null;
  }

  /**
   * Replaces what `userId` may do with `sharerId`'s data; an empty set removes the grant. The
   * sharer, its custodians and servers may set anything; a grantee may only remove its own grant.
   * Custodian reaching the caller through a clinic serves only the clinic's admins, and what they
   * grant is recorded with the clinic: it ends when the clinic no longer backs it (endClinicGrants).
   */
  async setPermissions(
    scope: Scope,
    sharerId: string,
    userId: string,
    names: readonly PermissionName[],
  ): Promise<PermissionName[]> {
    assertUserId(sharerId, 'sharerId');
    assertUserId(userId);
    if (!isAuthenticated(scope.principal)) throw unauthenticated();
    const permissions = this.checkGrantable(names);
    const selfRemoval = scope.principal.userId === userId && permissions.length === 0;
    const grant = selfRemoval ? null : await this.access.grantUsed(scope, sharerId, 'account-control');
    if (sharerId === userId) throw invalid('A user cannot share with itself: it already owns its data', 'userId');
    const existing = await this.accountsExist(scope, [sharerId, userId]);
    if (!existing.has(sharerId)) throw notFound(`User ${sharerId} not found`);
    if (!existing.has(userId)) throw notFound(`User ${userId} not found`);
    // In a transaction of its own, which carries the request's access-log entries with it.
    const made = { clinicId: grant?.clinicId ?? null, grantedBy: scope.principal.userId };
    await scope.em.transactional((tx) => this.write(tx, sharerId, userId, permissions, made));
    return permissions;
  }

  /** The custodian of a new custodial account gets full control of it. */
  async grantCustodianship(em: EntityManager, custodianId: string, accountId: string): Promise<void> {
    await this.write(em, accountId, custodianId, ['custodian', 'view', 'upload'], {
      clinicId: null,
      grantedBy: custodianId,
    });
  }

  /**
   * Inside `tx`: an accepted invitation's grant, exactly the permissions it offered (replacing
   * any earlier ones), recorded as made by its sender through the clinic whose access it used.
   */
  async grantInvited(
    tx: EntityManager,
    sharerId: string,
    granteeId: string,
    permissions: readonly Permission[],
    made: { clinicId: string | null; grantedBy: string | null },
  ): Promise<void> {
    if (sharerId === granteeId) throw invalid('A user cannot share with itself: it already owns its data', 'userId');
    await this.write(tx, sharerId, granteeId, this.checkGrantable(permissions), made);
  }

  /**
   * Inside `tx`: the grants made through the clinic's access end when the clinic no longer backs
   * them: when a clinician leaves it, those it made or received through it; when a patient leaves
   * it, those made on the patient's account through it.
   */
  async endClinicGrants(
    tx: EntityManager,
    clinicId: string,
    leaving: { clinicianId: string } | { patientId: string },
  ): Promise<void> {
    await removeClinicGrants(tx, clinicId, leaving);
  }

  /**
   * Part of deleting an account: its grants in both directions go with it, and so do the grants
   * it made through a clinic (its leaving the clinic ends them).
   */
  async forgetUser(scope: Scope, userId: string): Promise<void> {
    await removeGrantsOfUser(scope.em, userId);
  }

  /**
   * The users `userId` shares its data with, a page at a time (for GraphQL traversal: the caller
   * already read `userId`). Pages of many accounts in one request cost one query together.
   */
  async sharedWith(scope: Scope, userId: string, first?: number | null, after?: string | null) {
    return this.sharesPage(scope, 'given', userId, pageArgs(listOf('given', userId), first, after, isShareKey));
  }

  /** The users who share their data with `userId`, a page at a time. */
  async sharedBy(scope: Scope, userId: string, first?: number | null, after?: string | null) {
    return this.sharesPage(scope, 'received', userId, pageArgs(listOf('received', userId), first, after, isShareKey));
  }

  private async sharesPage(
    scope: Scope,
    side: Side,
    userId: string,
    args: ReturnType<typeof pageArgs>,
  ): Promise<PagedList<Share>> {
    const column = side === 'given' ? 'sharer_id' : 'grantee_id';
    const kept = side === 'received' && this.received ? await this.received.page(scope, userId, args) : null;
    const rows = kept?.rows ?? (await grantPages(scope, column, args).load(userId));
    const shares = rows.map((row) => shareOf(row, side));
    return {
      page: pageOf(listOf(side, userId), args, shares, (share) => [share.userId]),
      count: () => (kept ? Promise.resolve(kept.count) : grantCounts(scope, column).load(userId)),
    };
  }

  private checkGrantable(names: readonly PermissionName[]): Permission[] {
    if (names.includes('root'))
      throw invalid('root cannot be granted: it belongs to the account owner alone', 'permissions');
    return sorted(names) as Permission[];
  }

  /** `made`: who made the grant, and through which clinic's access (the last change decides). */
  private async write(
    em: EntityManager,
    sharerId: string,
    granteeId: string,
    permissions: Permission[],
    made: { clinicId: string | null; grantedBy: string | null },
  ): Promise<void> {
    // A grant given, changed or removed here is listed and checked from the table on this
    // instance at once. (A removal would be safe without it, since what is kept never lets
    // anyone in, but the grantee's list would still show the share until the notice.)
    this.received?.changing(granteeId);
    if (permissions.length === 0) await removeGrant(em, sharerId, granteeId);
    else await saveGrant(em, sharerId, granteeId, permissions, made);
  }
}
