import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { incomingContent, Upload, UploadScalar } from '../../graphql/upload';
import type { Scope } from '../../kernel/scope';
import { User } from '../users/user.types';
import { Blob, BlobListArgs } from './blob.types';
import { BlobsService } from './blobs.service';

@Resolver(() => Blob)
export class BlobsResolver {
  constructor(private readonly service: BlobsService) {}

  @Query(() => Blob, { description: 'A blob: its owner, the owner’s custodians and servers may read it.' })
  async blob(@Arg('id', () => ID) id: string, @Ctx() scope: Scope): Promise<Blob> {
    return Blob.from(await this.service.get(scope, id));
  }

  @Query(() => [Blob], { description: 'The blobs of a user, newest first.' })
  async blobs(
    @Arg('userId', () => ID) userId: string,
    @Args() filter: BlobListArgs,
    @Ctx() scope: Scope,
  ): Promise<Blob[]> {
    return (await this.service.list(scope, userId, filter.options())).map(Blob.from);
  }

  @Mutation(() => Blob, {
    description:
      'Creates a blob of a user: `available` with content, `created` without. With `digestMD5`, content whose MD5 differs is refused and nothing is kept.',
  })
  async createBlob(
    @Arg('userId', () => ID) userId: string,
    @Arg('mediaType', () => String, { nullable: true, description: 'Defaults to the media type of the uploaded file.' })
    mediaType: string | null,
    @Arg('digestMD5', () => String, { nullable: true }) digestMD5: string | null,
    @Arg('content', () => UploadScalar, { nullable: true }) content: Upload | null,
    @Ctx() scope: Scope,
  ): Promise<Blob> {
    const incoming = content ? await incomingContent(content, mediaType) : undefined;
    const blob = { mediaType: mediaType ?? incoming?.mediaType, digestMD5: digestMD5 ?? undefined, content: incoming };
    return Blob.from(await this.service.create(scope, userId, blob));
  }

  @Mutation(() => Blob, { description: 'Adds content to a `created` blob, which makes it `available`.' })
  async addBlobContent(
    @Arg('id', () => ID) id: string,
    @Arg('content', () => UploadScalar) content: Upload,
    @Arg('mediaType', () => String, { nullable: true, description: 'Defaults to the blob’s media type.' })
    mediaType: string | null,
    @Arg('digestMD5', () => String, { nullable: true }) digestMD5: string | null,
    @Ctx() scope: Scope,
  ): Promise<Blob> {
    const incoming = await incomingContent(content, mediaType);
    const update = { mediaType: mediaType ?? undefined, digestMD5: digestMD5 ?? undefined, content: incoming };
    return Blob.from(await this.service.addContent(scope, id, update));
  }

  @Mutation(() => Boolean, { description: 'Deletes a blob and its content; with `revision`, only at that revision.' })
  async deleteBlob(
    @Arg('id', () => ID) id: string,
    @Arg('revision', () => Int, { nullable: true }) revision: number | null,
    @Ctx() scope: Scope,
  ): Promise<boolean> {
    await this.service.delete(scope, id, revision ?? undefined);
    return true;
  }

  @Mutation(() => Boolean, { description: 'Deletes every blob of a user.' })
  async deleteUserBlobs(@Arg('userId', () => ID) userId: string, @Ctx() scope: Scope): Promise<boolean> {
    await this.service.deleteAllOf(scope, userId);
    return true;
  }
}

/** Blobs as seen from an account. */
@Resolver(() => User)
export class UserBlobsResolver {
  constructor(private readonly service: BlobsService) {}

  @FieldResolver(() => [Blob], {
    description: 'The blobs of this account, newest first; empty for callers who may not read them.',
  })
  async blobs(@Root() user: User, @Args() filter: BlobListArgs, @Ctx() scope: Scope): Promise<Blob[]> {
    const [list] = await this.service.listMany(scope, [user.userid], filter.options());
    return list.map(Blob.from);
  }
}
