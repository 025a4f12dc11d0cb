import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { countsByUser, newestPagesByUser, placeholders, rowDate, type SqlCondition } from '../../kernel/sql';
import { BlobSchema, type BlobRecord, type BlobStatus } from './blob.entity';

export interface BlobFilter {
  mediaTypes?: readonly string[];
  statuses: readonly BlobStatus[];
}

/** Blob metadata by id, batched per request. */
export function blobLoader(scope: Scope): Loader<string, BlobRecord | null> {
  return scope.loaders.get('blobs.byId', () => {
    return new Loader<string, BlobRecord | null>(async (ids) => {
      const rows = await scope.em.find(BlobSchema, { id: { $in: [...ids] } });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    });
  });
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

/** A page of the blobs of many users under one filter, newest first: one SELECT for the request. */
export function blobPages(scope: Scope, filter: BlobFilter, args: PageArgs): Loader<string, BlobRecord[]> {
  return scope.loaders.get(`blobs.pages:${JSON.stringify([filter, args])}`, () => {
    return new Loader<string, BlobRecord[]>(async (userIds) => {
      const pages = await newestPagesByUser(scope.em.getConnection(), 'blobs', filterSql(filter), userIds, args);
      return pages.map((rows) => rows.map(toBlobRecord));
    });
  });
}

/** How many blobs each user has under one filter, in one SELECT for the request. */
export function blobCounts(scope: Scope, filter: BlobFilter): Loader<string, number> {
  return scope.loaders.get(`blobs.counts:${JSON.stringify(filter)}`, () => {
    return new Loader<string, number>((userIds) =>
      countsByUser(scope.em.getConnection(), 'blobs', filterSql(filter), userIds),
    );
  });
}
