import { Directive, Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionOf } from '../../graphql/connection';
import { UploadScalar } from '../../graphql/upload';
import type { Upload } from '../../kernel/upload';
import type { BlobRecord, BlobStatus } from './blob.entity';
import type { BlobListOptions, BlobListPaging } from './blobs.service';

/** Blob states: UPPER_SNAKE_CASE in GraphQL, the lowercase names of the domain inside. */
export enum BlobStatusValue {
  CREATED = 'created',
  AVAILABLE = 'available',
}

registerEnumType(BlobStatusValue, {
  name: 'BlobStatus',
  description: 'Whether a blob has its content yet.',
  valuesConfig: {
    CREATED: { description: 'The blob exists but has no content yet; add it with `addBlobContent`.' },
    AVAILABLE: { description: 'The content is stored and can be downloaded from `contentPath`.' },
  },
});

@ObjectType({
  description:
    'Opaque binary content of a user (a file of any media type, up to 100 MiB) with its status. Its owner, the owner’s custodians and server tokens may read it.',
})
// A federation entity: other subgraphs reference it by `id` (src/graphql/federation.ts).
@Directive('@key(fields: "id")')
export class Blob {
  @Field(() => ID, { description: 'The blob id: 32 lowercase letters or digits.' })
  id!: string;

  @Field(() => ID, { description: 'The owner’s account id.' })
  userId!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Base64 MD5 digest of the content (24 characters); null until there is content.',
  })
  digestMD5!: string | null;

  @Field({ description: 'The media type of the content, such as `application/json` or `image/png`.' })
  mediaType!: string;

  @Field(() => Int, {
    nullable: true,
    description: 'Size of the content in bytes (at most 100 MiB); null until there is content.',
  })
  size!: number | null;

  @Field(() => BlobStatusValue, { description: 'Whether the content is stored yet.' })
  status!: BlobStatus;

  @Field(() => Date, { description: 'When the blob was created.' })
  createdTime!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'When the blob last changed (its content was stored); null if never.',
  })
  modifiedTime!: Date | null;

  @Field(() => Date, { nullable: true, description: 'Deleted blobs are removed at once, so this is always null.' })
  deletedTime!: Date | null;

  @Field(() => Int, {
    description: 'Counts the changes of the blob: 0 when created empty, 1 once content is stored with the first write.',
  })
  revision!: number;

  @Field({
    description: 'Where the content can be downloaded (GET, with the same credentials), relative to the service.',
  })
  contentPath!: string;

  static from(record: BlobRecord): Blob {
    return Object.assign(new Blob(), {
      id: record.id,
      userId: record.userId,
      digestMD5: record.digestMD5 ?? null,
      mediaType: record.mediaType,
      size: record.size ?? null,
      status: record.status as BlobStatus,
      createdTime: record.createdTime,
      modifiedTime: record.modifiedTime ?? null,
      deletedTime: null,
      revision: record.revision,
      contentPath: `/v1/blobs/${record.id}/content`,
    });
  }
}

export const BlobConnection = connectionOf(Blob, 'Blob', 'blob');
export type BlobConnection = InstanceType<typeof BlobConnection>;

/** Which blobs a list holds, the same wherever blobs are listed. */
@InputType({ description: 'Which blobs to list; omitted fields do not filter.' })
export class BlobFilter {
  @Field(() => [String], { nullable: true, description: 'Only blobs of these media types (at most 100).' })
  mediaType?: string[] | null;

  @Field(() => [BlobStatusValue], {
    nullable: true,
    description: 'Only blobs in these states; AVAILABLE ones when omitted.',
  })
  status?: BlobStatusValue[] | null;

  static options(filter: BlobFilter | null | undefined, paging: BlobListPaging): BlobListOptions {
    return { mediaTypes: filter?.mediaType ?? [], statuses: filter?.status ?? [], ...paging };
  }
}

@InputType({ description: 'A new blob of a user.' })
export class CreateBlobInput {
  @Field(() => ID, {
    description: 'The owner: the caller, an account it uploads for (UPLOAD or CUSTODIAN), or any with a server token.',
  })
  userId!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The media type of the content; defaults to the uploaded file’s. Required without content.',
  })
  mediaType?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Base64 MD5 of the content: content whose digest differs is refused and nothing is kept.',
  })
  digestMD5?: string | null;

  @Field(() => UploadScalar, {
    nullable: true,
    description: 'The content (a multipart file, up to 100 MiB). Without it the blob is CREATED, empty.',
  })
  content?: Upload | null;
}

@ObjectType({ description: 'The result of `createBlob`.' })
export class CreateBlobPayload {
  @Field(() => Blob, { description: 'The new blob.' })
  blob!: Blob;
}

@InputType({ description: 'Content for a blob that has none yet.' })
export class AddBlobContentInput {
  @Field(() => ID, { description: 'The blob, which must be CREATED.' })
  id!: string;

  @Field(() => UploadScalar, { description: 'The content (a multipart file, up to 100 MiB, not empty).' })
  content!: Upload;

  @Field(() => String, { nullable: true, description: 'A new media type; the blob’s own when omitted.' })
  mediaType?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Base64 MD5 of the content: content whose digest differs is refused and nothing is kept.',
  })
  digestMD5?: string | null;
}

@ObjectType({ description: 'The result of `addBlobContent`.' })
export class AddBlobContentPayload {
  @Field(() => Blob, { description: 'The blob, now AVAILABLE.' })
  blob!: Blob;
}

@InputType({ description: 'The blob to delete.' })
export class DeleteBlobInput {
  @Field(() => ID, { description: 'The blob.' })
  id!: string;

  @Field(() => Int, {
    nullable: true,
    description: 'Delete only if the blob is still at this revision (NOT_FOUND otherwise).',
  })
  revision?: number | null;
}

@ObjectType({ description: 'The result of `deleteBlob`.' })
export class DeleteBlobPayload {
  @Field(() => ID, { description: 'The id of the blob that no longer exists.' })
  deletedBlobId!: string;
}

@InputType({ description: 'The user whose blobs to delete.' })
export class DeleteUserBlobsInput {
  @Field(() => ID, { description: 'The owner: the caller, an account it is custodian of, or any with a server token.' })
  userId!: string;
}

@ObjectType({ description: 'The result of `deleteUserBlobs`.' })
export class DeleteUserBlobsPayload {
  @Field(() => ID, { description: 'The user whose blobs, all of them, no longer exist.' })
  userId!: string;
}
