import { ArgsType, Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { BlobRecord, BlobStatus } from './blob.entity';
import { PAGE_SIZE, type BlobListOptions } from './blobs.service';

export enum BlobStatusValue {
  created = 'created',
  available = 'available',
}

registerEnumType(BlobStatusValue, {
  name: 'BlobStatus',
  description: '`created`: the blob has no content yet; `available`: its content is stored.',
});

@ObjectType({ description: 'Opaque binary content of a user, with its status (spec §2.4).' })
export class Blob {
  @Field(() => ID, { description: '32 lowercase letters or digits.' })
  id!: string;

  @Field(() => ID, { description: 'The owner.' })
  userId!: string;

  @Field(() => String, { nullable: true, description: 'Base64 MD5 of the content; null until there is content.' })
  digestMD5!: string | null;

  @Field()
  mediaType!: string;

  @Field(() => Int, { nullable: true, description: 'Bytes; null until there is content.' })
  size!: number | null;

  @Field(() => BlobStatusValue)
  status!: BlobStatus;

  @Field(() => Date)
  createdTime!: Date;

  @Field(() => Date, { nullable: true })
  modifiedTime!: Date | null;

  @Field(() => Date, { nullable: true, description: 'Deleted blobs are removed at once, so this is always null.' })
  deletedTime!: Date | null;

  @Field(() => Int, { description: 'Counts the updates of the blob: 1 once content is stored with the first write.' })
  revision!: number;

  @Field({ description: 'Where the content can be downloaded (GET, with the same credentials).' })
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

/** The filters and paging of a blob list, the same wherever blobs are listed. */
@ArgsType()
export class BlobListArgs {
  @Field(() => [String], { nullable: true, description: 'Only blobs of these media types.' })
  mediaType?: string[] | null;

  @Field(() => [BlobStatusValue], {
    nullable: true,
    description: 'Only blobs in these states; by default `available` ones.',
  })
  status?: BlobStatusValue[] | null;

  @Field(() => Int, { nullable: true, description: 'Page number, from 0.' })
  page?: number | null;

  @Field(() => Int, {
    nullable: true,
    description: `Page size, 1 to ${PAGE_SIZE.max}; ${PAGE_SIZE.default} by default.`,
  })
  size?: number | null;

  options(): BlobListOptions {
    return {
      mediaTypes: this.mediaType ?? [],
      statuses: this.status ?? [],
      page: this.page ?? 0,
      size: this.size ?? undefined,
    };
  }
}
