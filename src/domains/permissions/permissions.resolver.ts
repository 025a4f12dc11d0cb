import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { isAppError } from '../../kernel/errors';
import type { Scope } from '../../kernel/scope';
import { User } from '../users/user.types';
import { UsersService } from '../users/users.service';
import { PermissionNameValue, Share } from './permission.types';
import { PermissionsService, type PermissionName } from './permissions.service';

@Resolver(() => Share)
export class PermissionsResolver {
  constructor(
    private readonly sharing: PermissionsService,
    private readonly users: UsersService,
  ) {}

  @Query(() => [Share], {
    description: 'The groups a user can access: every sharer that granted it something, and itself as root.',
  })
  async accessibleGroups(@Arg('userId', () => ID) userId: string, @Ctx() scope: Scope): Promise<Share[]> {
    return (await this.sharing.groupsOf(scope, userId)).map(Share.from);
  }

  @Query(() => [Share], {
    description: "Who can access a sharer's data: every grantee, and the sharer itself as root.",
  })
  async groupMembers(@Arg('sharerId', () => ID) sharerId: string, @Ctx() scope: Scope): Promise<Share[]> {
    return (await this.sharing.membersOf(scope, sharerId)).map(Share.from);
  }

  @Query(() => [PermissionNameValue], {
    nullable: true,
    description: "What a user may do with a sharer's data; null when nothing.",
  })
  async permissions(
    @Arg('sharerId', () => ID) sharerId: string,
    @Arg('userId', () => ID) userId: string,
    @Ctx() scope: Scope,
  ): Promise<PermissionName[] | null> {
    return this.sharing.permissionsOf(scope, sharerId, userId);
  }

  @Mutation(() => [PermissionNameValue], {
    description: "Replaces what a user may do with a sharer's data; an empty list removes the grant.",
  })
  async setPermissions(
    @Arg('sharerId', () => ID) sharerId: string,
    @Arg('userId', () => ID) userId: string,
    @Arg('permissions', () => [PermissionNameValue]) names: PermissionName[],
    @Ctx() scope: Scope,
  ): Promise<PermissionName[]> {
    return this.sharing.setPermissions(scope, sharerId, userId, names);
  }

  @FieldResolver(() => User, { nullable: true })
  async user(@Root() share: Share, @Ctx() scope: Scope): Promise<User | null> {
    try {
      return User.from(await this.users.get(scope, share.userid), scope.principal);
    } catch (error) {
      if (isAppError(error) && (error.code === 'FORBIDDEN' || error.code === 'NOT_FOUND')) return null;
      throw error;
    }
  }
}

/** Sharing as seen from an account: traversable from any User the caller may read. */
@Resolver(() => User)
export class UserSharingResolver {
  constructor(private readonly sharing: PermissionsService) {}

  @FieldResolver(() => [Share], { description: 'The users this account shares its data with.' })
  async sharedWith(@Root() user: User, @Ctx() scope: Scope): Promise<Share[]> {
    return (await this.sharing.sharedWith(scope, user.userid)).map(Share.from);
  }

  @FieldResolver(() => [Share], { description: 'The users who share their data with this account.' })
  async sharedBy(@Root() user: User, @Ctx() scope: Scope): Promise<Share[]> {
    return (await this.sharing.sharedBy(scope, user.userid)).map(Share.from);
  }
}
