import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Scope } from '../../kernel/scope';
import { AccountLifecycleService } from './account-lifecycle.service';
import {
  CreateCustodialUserInput,
  CreateCustodialUserPayload,
  DeleteUserInput,
  DeleteUserPayload,
  UpdateMeInput,
  UpdateMePayload,
  UpdateUserInput,
  UpdateUserPayload,
  User,
} from './user.types';
import { UsersService } from './users.service';

@Resolver(() => User)
export class UsersResolver {
  constructor(
    private readonly accounts: UsersService,
    private readonly lifecycle: AccountLifecycleService,
  ) {}

  @Query(() => User, { description: 'The account of the caller (a user token is required).' })
  async me(@Ctx() scope: Scope): Promise<User> {
    return User.from(await this.accounts.me(scope), scope.principal);
  }

  @Query(() => User, {
    nullable: true,
    description:
      'An account by id or email address. The owner, its custodians and server tokens may read it; otherwise null with a FORBIDDEN error, or NOT_FOUND when there is no such account.',
  })
  async user(
    @Arg('id', () => ID, { description: 'The account id (`userId`), or one of its email addresses.' }) id: string,
    @Ctx() scope: Scope,
  ): Promise<User> {
    return User.from(await this.accounts.get(scope, id), scope.principal);
  }

  @Mutation(() => UpdateMePayload, { description: "Changes the caller's own account." })
  async updateMe(
    @Arg('input', () => UpdateMeInput, { description: 'The changes; omitted fields stay as they are.' })
    input: UpdateMeInput,
    @Ctx() scope: Scope,
  ): Promise<UpdateMePayload> {
    const me = await this.accounts.me(scope);
    const user = User.from(await this.accounts.update(scope, me.id, input), scope.principal);
    return Object.assign(new UpdateMePayload(), { user });
  }

  @Mutation(() => UpdateUserPayload, {
    description:
      'Changes an account: its owner, its custodians and server tokens may (custodian through a clinic: the clinic’s CLINIC_ADMINs only).',
  })
  async updateUser(
    @Arg('input', () => UpdateUserInput, { description: 'The account and the changes.' }) input: UpdateUserInput,
    @Ctx() scope: Scope,
  ): Promise<UpdateUserPayload> {
    const { userId, ...changes } = input;
    const user = User.from(await this.accounts.update(scope, userId, changes), scope.principal);
    return Object.assign(new UpdateUserPayload(), { user });
  }

  @Query(() => [User], {
    nullable: 'items',
    description:
      'Accounts by id, in the order asked (a batch lookup of at most 100 ids); null where the caller may not read one or none exists.',
    // One account per entry. The cost analysis runs before any resolver, so too many ids are refused there.
    complexity: ({ args, childComplexity }) => UsersService.assertIdCount(args.ids) * (1 + childComplexity),
  })
  async users(
    @Arg('ids', () => [ID], { description: 'Account ids, 1 to 100.' }) ids: string[],
    @Ctx() scope: Scope,
  ): Promise<(User | null)[]> {
    return (await this.accounts.many(scope, ids)).map((user) => user && User.from(user, scope.principal));
  }

  @Mutation(() => CreateCustodialUserPayload, {
    description:
      'Creates an account without a login, managed by the custodian (who gets custodian, view and upload permissions on it).',
  })
  async createCustodialUser(
    @Arg('input', () => CreateCustodialUserInput, { description: 'The custodian and the optional names.' })
    input: CreateCustodialUserInput,
    @Ctx() scope: Scope,
  ): Promise<CreateCustodialUserPayload> {
    const { custodianId, ...account } = input;
    const user = User.from(await this.lifecycle.createCustodial(scope, custodianId, account), scope.principal);
    return Object.assign(new CreateCustodialUserPayload(), { user });
  }

  @Mutation(() => DeleteUserPayload, {
    description:
      'Deletes an account and everything it holds (blobs, device logs, shares). Owners confirm with their current password; custodians (through a clinic: its CLINIC_ADMINs only) and servers need none.',
  })
  async deleteUser(
    @Arg('input', () => DeleteUserInput, { description: 'The account, and the password when deleting one’s own.' })
    input: DeleteUserInput,
    @Ctx() scope: Scope,
  ): Promise<DeleteUserPayload> {
    await this.lifecycle.delete(scope, input.userId, input.password ?? null);
    return Object.assign(new DeleteUserPayload(), { deletedUserId: input.userId });
  }
}
