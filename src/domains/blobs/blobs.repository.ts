import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import type { PageArgs } from '../../kernel/paging';
import { countsByUser, newestPagesByUser, placeholders, rowDate, type SqlCondition } from '../../kernel/sql';
import { BlobSchema, type BlobRecord, type BlobStatus } from './blob.entity';

/**
 * Every read and write of the blobs domain's table (`blobs`). The service holds the rules, the
 * loaders batch; this holds the statements.
 */

export interface BlobFilter {
  mediaTypes?: readonly string[];
  statuses: readonly BlobStatus[];
}

/**
 * A row as a plain snapshot: a listed page is read, never changed, and mapping hundreds of rows
 * to managed entities costs more than the query.
 */
function toBlobRecord(row: Record<string, unknown>): BlobRecord {
  return {
    id: row.id as string,
    userId: row.user_id as string,
    mediaType: row.media_type as string,
    status: row.status as string,
    digestMD5: (row.digest_md5 as string | null) ?? null,
    size: (row.size as number | null) ?? null,
    objectKey: (row.object_key as string | null) ?? null,
    revision: row.revision as number,
    createdTime: rowDate(row.created_time)!,
    modifiedTime: rowDate(row.modified_time),
  } as BlobRecord;
}

/** The filter as SQL conditions on `blobs`, with their parameters. */
function filterSql(filter: BlobFilter): SqlCondition {
  const mediaTypes = filter.mediaTypes ?? [];
  return {
    sql:
      `status in (${placeholders(filter.statuses.length)})` +
      (mediaTypes.length ? ` and media_type in (${placeholders(mediaTypes.length)})` : ''),
    params: [...filter.statuses, ...mediaTypes],
  };
}

export function blobsByIds(em: EntityManager, ids: readonly string[]): Promise<BlobRecord[]> {
  return em.find(BlobSchema, { id: { $in: [...ids] } });
}

/** A page of the blobs of each of `userIds` under one filter, newest first, in one SELECT. */
export async function blobPagesOf(
  em: EntityManager,
  userIds: readonly string[],
  filter: BlobFilter,
  args: PageArgs,
): Promise<BlobRecord[][]> {
  const pages = await newestPagesByUser(em, 'blobs', filterSql(filter), userIds, args, { stale: true });
  return pages.map((rows) => rows.map(toBlobRecord));
}

/** How many blobs each of `userIds` has under one filter, in one SELECT. */
export function blobCountsOf(em: EntityManager, userIds: readonly string[], filter: BlobFilter): Promise<number[]> {
  return countsByUser(em, 'blobs', filterSql(filter), userIds, { stale: true });
}

export async function insertBlob(tx: EntityManager, blob: BlobRecord): Promise<void> {
  await tx.insert(BlobSchema, blob);
}

/** Applies `changes` to the blob if it is still `created` at `revision`; whether it was. */
export async function completeBlob(
  tx: EntityManager,
  id: string,
  revision: number,
  changes: Partial<BlobRecord>,
): Promise<boolean> {
  return (await tx.nativeUpdate(BlobSchema, { id, status: 'created', revision }, changes)) === 1;
}

/** Removes the blob if it is still at `revision`; whether it was. */
export async function removeBlob(tx: EntityManager, id: string, revision: number): Promise<boolean> {
  return (await tx.nativeDelete(BlobSchema, { id, revision })) === 1;
}

/**
 * Deletes the records of `userId`'s blobs in one statement, returning their object keys. Exactly
 * the rows it deleted go, so a blob whose upload commits meanwhile keeps its record and its bytes.
 */
export async function removeBlobsOf(tx: EntityManager, userId: string): Promise<string[]> {
  const rows = await sqlOf(tx).rows<{ object_key: string | null }>(
    'delete from blobs where user_id = ? returning object_key',
    [userId],
  );
  return rows.flatMap((row) => (row.object_key ? [row.object_key] : []));
}
