import { Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { OffsetPageArgs } from '../../graphql/connection';
import { incomingContent } from '../../kernel/upload';
import type { Scope } from '../../kernel/scope';
import { User } from '../users/user.types';
import {
  AddBlobContentInput,
  AddBlobContentPayload,
  Blob,
  BlobConnection,
  BlobFilter,
  CreateBlobInput,
  CreateBlobPayload,
  DeleteBlobInput,
  DeleteBlobPayload,
  DeleteUserBlobsInput,
  DeleteUserBlobsPayload,
} from './blob.types';
import { BlobsService } from './blobs.service';

const FILTER = { nullable: true, description: 'Which blobs to list; AVAILABLE ones of any media type by default.' };

@Resolver(() => Blob)
export class BlobsResolver {
  constructor(private readonly service: BlobsService) {}

  @Query(() => Blob, {
    nullable: true,
    description:
      'A blob by id. Its owner, the owner’s custodians and server tokens may read it; otherwise null with FORBIDDEN, or NOT_FOUND when there is no such blob.',
  })
  async blob(
    @Arg('id', () => ID, { description: 'The blob id: 32 lowercase letters or digits.' }) id: string,
    @Ctx() scope: Scope,
  ): Promise<Blob> {
    return Blob.from(await this.service.get(scope, id));
  }

  @Query(() => BlobConnection, {
    description:
      'The blobs of a user, newest first. The owner, its custodians and server tokens may list them; others get FORBIDDEN.',
  })
  async blobs(
    @Arg('userId', () => ID, { description: 'The owner.' }) userId: string,
    @Arg('filter', () => BlobFilter, FILTER) filter: BlobFilter | null,
    @Args() paging: OffsetPageArgs,
    @Ctx() scope: Scope,
  ): Promise<BlobConnection> {
    return BlobConnection.of(await this.service.list(scope, userId, BlobFilter.options(filter, paging)), Blob.from);
  }

  @Mutation(() => CreateBlobPayload, {
    description:
      'Creates a blob of a user: AVAILABLE with content, CREATED without. With `digestMD5`, content whose MD5 differs is refused and nothing is kept.',
  })
  async createBlob(
    @Arg('input', () => CreateBlobInput, { description: 'The owner, the content and its description.' })
    input: CreateBlobInput,
    @Ctx() scope: Scope,
  ): Promise<CreateBlobPayload> {
    const { userId, mediaType, digestMD5, content } = input;
    const incoming = content ? await incomingContent(content, mediaType ?? null) : undefined;
    const blob = { mediaType: mediaType ?? incoming?.mediaType, digestMD5: digestMD5 ?? undefined, content: incoming };
    return Object.assign(new CreateBlobPayload(), { blob: Blob.from(await this.service.create(scope, userId, blob)) });
  }

  @Mutation(() => AddBlobContentPayload, { description: 'Adds content to a CREATED blob, which makes it AVAILABLE.' })
  async addBlobContent(
    @Arg('input', () => AddBlobContentInput, { description: 'The blob and its content.' }) input: AddBlobContentInput,
    @Ctx() scope: Scope,
  ): Promise<AddBlobContentPayload> {
    const { id, content, mediaType, digestMD5 } = input;
    const incoming = await incomingContent(content, mediaType ?? null);
    const update = { mediaType: mediaType ?? undefined, digestMD5: digestMD5 ?? undefined, content: incoming };
    return Object.assign(new AddBlobContentPayload(), {
      blob: Blob.from(await this.service.addContent(scope, id, update)),
    });
  }

  @Mutation(() => DeleteBlobPayload, {
    description: 'Deletes a blob and its content; with `revision`, only at that revision.',
  })
  async deleteBlob(
    @Arg('input', () => DeleteBlobInput, { description: 'The blob, and optionally its expected revision.' })
    input: DeleteBlobInput,
    @Ctx() scope: Scope,
  ): Promise<DeleteBlobPayload> {
    await this.service.delete(scope, input.id, input.revision ?? undefined);
    return Object.assign(new DeleteBlobPayload(), { deletedBlobId: input.id });
  }

  @Mutation(() => DeleteUserBlobsPayload, { description: 'Deletes every blob of a user, with its content.' })
  async deleteUserBlobs(
    @Arg('input', () => DeleteUserBlobsInput, { description: 'The owner.' }) input: DeleteUserBlobsInput,
    @Ctx() scope: Scope,
  ): Promise<DeleteUserBlobsPayload> {
    await this.service.deleteAllOf(scope, input.userId);
    return Object.assign(new DeleteUserBlobsPayload(), { userId: input.userId });
  }
}

/** Blobs as seen from an account. */
@Resolver(() => User)
export class UserBlobsResolver {
  constructor(private readonly service: BlobsService) {}

  @FieldResolver(() => BlobConnection, {
    description:
      'The blobs of this account, newest first; an empty list for callers who may not read them (only the owner, its custodians and server tokens may).',
  })
  async blobs(
    @Root() user: User,
    @Arg('filter', () => BlobFilter, FILTER) filter: BlobFilter | null,
    @Args() paging: OffsetPageArgs,
    @Ctx() scope: Scope,
  ): Promise<BlobConnection> {
    const options = BlobFilter.options(filter, paging);
    return BlobConnection.of(await this.service.listOf(scope, user.userId, options), Blob.from);
  }
}
