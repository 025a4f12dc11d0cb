import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Scope } from '../../kernel/scope';
import { AccountLifecycleService } from './account-lifecycle.service';
import { CustodialUserInput, User, UserUpdateInput } from './user.types';
import { UsersService } from './users.service';

@Resolver(() => User)
export class UsersResolver {
  constructor(
    private readonly accounts: UsersService,
    private readonly lifecycle: AccountLifecycleService,
  ) {}

  @Query(() => User, { description: 'The account of the caller.' })
  async me(@Ctx() scope: Scope): Promise<User> {
    return User.from(await this.accounts.me(scope), scope.principal);
  }

  @Query(() => User, { description: 'An account by id or email: the owner, its custodians and servers may read it.' })
  async user(@Arg('id', () => ID) id: string, @Ctx() scope: Scope): Promise<User> {
    return User.from(await this.accounts.get(scope, id), scope.principal);
  }

  @Mutation(() => User)
  async updateMe(@Arg('input') input: UserUpdateInput, @Ctx() scope: Scope): Promise<User> {
    const me = await this.accounts.me(scope);
    return User.from(await this.accounts.update(scope, me.id, input), scope.principal);
  }

  @Mutation(() => User)
  async updateUser(
    @Arg('id', () => ID) id: string,
    @Arg('input') input: UserUpdateInput,
    @Ctx() scope: Scope,
  ): Promise<User> {
    return User.from(await this.accounts.update(scope, id, input), scope.principal);
  }

  @Query(() => [User], {
    nullable: 'items',
    description: 'Accounts by id; null where the caller may not read one or none exists.',
    // One account per entry. The cost analysis runs before any resolver, so too many ids are refused there.
    complexity: ({ args, childComplexity }) => UsersService.assertIdCount(args.ids) * (1 + childComplexity),
  })
  async users(@Arg('ids', () => [ID]) ids: string[], @Ctx() scope: Scope): Promise<(User | null)[]> {
    return (await this.accounts.many(scope, ids)).map((user) => user && User.from(user, scope.principal));
  }

  @Mutation(() => User, {
    description: 'An account without a login, managed by the custodian (who gets custodian, view and upload).',
  })
  async createCustodialUser(
    @Arg('custodianId', () => ID) custodianId: string,
    @Arg('input', () => CustodialUserInput, { defaultValue: {} }) input: CustodialUserInput,
    @Ctx() scope: Scope,
  ): Promise<User> {
    return User.from(await this.lifecycle.createCustodial(scope, custodianId, input), scope.principal);
  }

  @Mutation(() => Boolean, {
    description: 'Deletes an account and all it holds. Owners confirm with their current password.',
  })
  async deleteUser(
    @Arg('id', () => ID) id: string,
    @Arg('password', () => String, { nullable: true }) password: string | null,
    @Ctx() scope: Scope,
  ): Promise<boolean> {
    await this.lifecycle.delete(scope, id, password);
    return true;
  }
}
