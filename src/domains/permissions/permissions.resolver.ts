import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { PageArgs } from '../../graphql/connection';
import type { Scope } from '../../kernel/scope';
import { User } from '../users/user.types';
import { UsersService } from '../users/users.service';
import {
  PermissionNameValue,
  SetPermissionsInput,
  SetPermissionsPayload,
  Share,
  ShareConnection,
} from './permission.types';
import { PermissionsService, type PermissionName } from './permissions.service';

@Resolver(() => Share)
export class PermissionsResolver {
  constructor(
    private readonly sharing: PermissionsService,
    private readonly users: UsersService,
  ) {}

  @Query(() => ShareConnection, {
    description:
      'The accounts that share their data with a user, by id: the user itself, its custodians and server tokens may ask. The user’s own data (ROOT) is not listed.',
  })
  async accessibleGroups(
    @Arg('userId', () => ID, { description: 'The grantee whose shares to list.' }) userId: string,
    @Args() { first, after }: PageArgs,
    @Ctx() scope: Scope,
  ): Promise<ShareConnection> {
    return ShareConnection.of(await this.sharing.groupsOf(scope, userId, first, after), Share.from);
  }

  @Query(() => ShareConnection, {
    description:
      'The accounts a sharer shares its data with, by id: the sharer, its custodians and server tokens may ask. The sharer itself (ROOT) is not listed.',
  })
  async groupMembers(
    @Arg('sharerId', () => ID, { description: 'The sharer whose grantees to list.' }) sharerId: string,
    @Args() { first, after }: PageArgs,
    @Ctx() scope: Scope,
  ): Promise<ShareConnection> {
    return ShareConnection.of(await this.sharing.membersOf(scope, sharerId, first, after), Share.from);
  }

  @Query(() => [PermissionNameValue], {
    nullable: true,
    description:
      "What a user may do with a sharer's data: [ROOT] when they are the same account, null when nothing. The user itself, the sharer's custodians and servers may ask.",
  })
  async permissions(
    @Arg('sharerId', () => ID, { description: 'The account whose data is shared.' }) sharerId: string,
    @Arg('userId', () => ID, { description: 'The account that may hold permissions.' }) userId: string,
    @Ctx() scope: Scope,
  ): Promise<PermissionName[] | null> {
    return this.sharing.permissionsOf(scope, sharerId, userId);
  }

  @Mutation(() => SetPermissionsPayload, {
    description:
      "Replaces what a user may do with a sharer's data; an empty list removes the share. The sharer, its custodians and servers may set anything (custodian through a clinic: the clinic's CLINIC_ADMINs only, and what they grant ends when the clinic no longer backs it); a grantee may only remove its own share.",
  })
  async setPermissions(
    @Arg('input', () => SetPermissionsInput, { description: 'The sharer, the grantee and the permissions.' })
    input: SetPermissionsInput,
    @Ctx() scope: Scope,
  ): Promise<SetPermissionsPayload> {
    const { sharerId, userId } = input;
    const permissions = await this.sharing.setPermissions(scope, sharerId, userId, input.permissions);
    return Object.assign(new SetPermissionsPayload(), { sharerId, userId, permissions });
  }

  @FieldResolver(() => User, { nullable: true })
  async user(@Root() share: Share, @Ctx() scope: Scope): Promise<User | null> {
    const user = await this.users.readable(scope, share.userId);
    return user && User.from(user, scope.principal);
  }
}

/** Sharing as seen from an account: traversable from any User the caller may read. */
@Resolver(() => User)
export class UserSharingResolver {
  constructor(private readonly sharing: PermissionsService) {}

  @FieldResolver(() => ShareConnection, { description: 'The accounts this account shares its data with, by id.' })
  async sharedWith(
    @Root() user: User,
    @Args() { first, after }: PageArgs,
    @Ctx() scope: Scope,
  ): Promise<ShareConnection> {
    return ShareConnection.of(await this.sharing.sharedWith(scope, user.userId, first, after), Share.from);
  }

  @FieldResolver(() => ShareConnection, { description: 'The accounts that share their data with this account, by id.' })
  async sharedBy(
    @Root() user: User,
    @Args() { first, after }: PageArgs,
    @Ctx() scope: Scope,
  ): Promise<ShareConnection> {
    return ShareConnection.of(await this.sharing.sharedBy(scope, user.userId, first, after), Share.from);
  }
}
