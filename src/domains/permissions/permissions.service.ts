import type { EntityManager } from '@mikro-orm/postgresql';
import { invalid, notFound, unauthenticated } from '../../kernel/errors';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import { assertUserId } from '../../kernel/validation';
import { GRANTABLE_PERMISSIONS, type AccessPolicy, type Permission } from './access-policy';
import { PermissionGrantSchema } from './permission-grant.entity';
import { grantsByGrantee, grantsBySharer } from './permissions.loaders';
import type { AccountsExist } from '../../kernel/accounts';

/** A permission name as the wire shows it: the grantable ones, plus `root` for the owner. */
export type PermissionName = Permission | 'root';

/** One entry of a permission group: another user and what the sharer lets it do. */
export interface Share {
  userid: string;
  permissions: PermissionName[];
}

const OWNER: PermissionName[] = ['root'];
const ORDER: readonly PermissionName[] = ['root', ...GRANTABLE_PERMISSIONS];
const sorted = (names: Iterable<PermissionName>) =>
  [...new Set(names)].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));

export class PermissionsService {
  constructor(
    private readonly access: AccessPolicy,
    private readonly accountsExist: AccountsExist,
  ) {}

  /** The groups `userId` can access: every sharer that granted it something, and itself as owner. */
  async groupsOf(scope: Scope, userId: string): Promise<Share[]> {
    assertUserId(userId);
    await this.access.assertAllowed(scope, userId, ['custodian']);
    const rows = await grantsByGrantee(scope).load(userId);
    return [
      { userid: userId, permissions: OWNER },
      ...rows.map((row) => ({ userid: row.sharer_id, permissions: sorted(row.permissions) })),
    ];
  }

  /** Who can access `sharerId`'s data: every grantee, and the sharer itself as owner. */
  async membersOf(scope: Scope, sharerId: string): Promise<Share[]> {
    assertUserId(sharerId, 'sharerId');
    await this.access.assertAllowed(scope, sharerId, ['custodian']);
    const rows = await grantsBySharer(scope).load(sharerId);
    return [
      { userid: sharerId, permissions: OWNER },
      ...rows.map((row) => ({ userid: row.grantee_id, permissions: sorted(row.permissions) })),
    ];
  }

  /** What `userId` may do with `sharerId`'s data; null when it holds nothing. */
  async permissionsOf(scope: Scope, sharerId: string, userId: string): Promise<PermissionName[] | null> {
    assertUserId(sharerId, 'sharerId');
    assertUserId(userId);
    const involved = scope.principal.userId === userId;
    if (!involved) await this.access.assertAllowed(scope, sharerId, ['custodian']);
    if (sharerId === userId) return OWNER;
    const row = (await grantsBySharer(scope).load(sharerId)).find((grant) => grant.grantee_id === userId);
    return row ? sorted(row.permissions) : null;
  }

  /**
   * Replaces what `userId` may do with `sharerId`'s data; an empty set removes the grant. The
   * sharer, its custodians and servers may set anything; a grantee may only remove its own grant.
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
    if (!selfRemoval) await this.access.assertAllowed(scope, sharerId, ['custodian']);
    if (sharerId === userId) throw invalid('A user cannot share with itself: it already owns its data', 'userId');
    const existing = await this.accountsExist(scope, [sharerId, userId]);
    if (!existing.has(sharerId)) throw notFound(`User ${sharerId} not found`);
    if (!existing.has(userId)) throw notFound(`User ${userId} not found`);
    await this.write(scope.em, sharerId, userId, permissions);
    return permissions;
  }

  /** The custodian of a new custodial account gets full control of it. */
  async grantCustodianship(em: EntityManager, custodianId: string, accountId: string): Promise<void> {
    await this.write(em, accountId, custodianId, ['custodian', 'view', 'upload']);
  }

  /** Part of deleting an account: its grants in both directions go with it. */
  async forgetUser(scope: Scope, userId: string): Promise<void> {
    await scope.em.nativeDelete(PermissionGrantSchema, { $or: [{ sharerId: userId }, { granteeId: userId }] });
  }

  /** The users `userId` shares its data with (for GraphQL traversal; the caller already read `userId`). */
  sharedWith(scope: Scope, userId: string): Promise<Share[]> {
    return grantsBySharer(scope)
      .load(userId)
      .then((rows) => rows.map((row) => ({ userid: row.grantee_id, permissions: sorted(row.permissions) })));
  }

  /** The users who share their data with `userId`. */
  sharedBy(scope: Scope, userId: string): Promise<Share[]> {
    return grantsByGrantee(scope)
      .load(userId)
      .then((rows) => rows.map((row) => ({ userid: row.sharer_id, permissions: sorted(row.permissions) })));
  }

  private checkGrantable(names: readonly PermissionName[]): Permission[] {
    if (names.includes('root'))
      throw invalid('root cannot be granted: it belongs to the account owner alone', 'permissions');
    return sorted(names) as Permission[];
  }

  private async write(
    em: EntityManager,
    sharerId: string,
    granteeId: string,
    permissions: Permission[],
  ): Promise<void> {
    if (permissions.length === 0) {
      await em.nativeDelete(PermissionGrantSchema, { sharerId, granteeId });
      return;
    }
    const now = new Date();
    await em.upsert(
      PermissionGrantSchema,
      { sharerId, granteeId, permissions, createdTime: now, modifiedTime: now },
      { onConflictFields: ['sharerId', 'granteeId'], onConflictMergeFields: ['permissions', 'modifiedTime'] },
    );
  }
}
