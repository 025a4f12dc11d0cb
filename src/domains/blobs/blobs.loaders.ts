import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { placeholders } from '../../kernel/sql';
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
/** Driver rows may carry timestamps as text (MikroORM's pg settings) or as dates. */
const asDate = (value: unknown): Date | null =>
  value === null || value === undefined ? null : value instanceof Date ? value : new Date(value as string);

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
    createdTime: asDate(row.created_time)!,
    modifiedTime: asDate(row.modified_time),
  } as BlobRecord;
}

/** The filter as SQL conditions on `blobs`, with their parameters. */
function filterSql(filter: BlobFilter): { sql: string; params: unknown[] } {
  const mediaTypes = filter.mediaTypes ?? [];
  return {
    sql:
      `status in (${placeholders(filter.statuses.length)})` +
      (mediaTypes.length ? ` and media_type in (${placeholders(mediaTypes.length)})` : ''),
    params: [...filter.statuses, ...mediaTypes],
  };
}

/**
 * A page of the blobs of many users under one filter, newest first (then by id), one row more
 * than asked so the page knows whether more follow: listing the blobs of a hundred users costs
 * one SELECT. `after` is the (created time, id) of the last row of the previous page. Created
 * times are written from JavaScript dates, so milliseconds compare exactly.
 */
export function blobPages(scope: Scope, filter: BlobFilter, args: PageArgs): Loader<string, BlobRecord[]> {
  return scope.loaders.get(`blobs.pages:${JSON.stringify([filter, args])}`, () => {
    return new Loader<string, BlobRecord[]>(async (userIds) => {
      const where = filterSql(filter);
      const after = args.after === null ? null : [new Date(args.after[0]), new Date(args.after[0]), args.after[1]];
      const rows = await scope.em.getConnection().execute<Record<string, unknown>[]>(
        `select * from (
           select *, row_number() over (partition by user_id order by created_time desc, id) as position
           from blobs
           where user_id in (${placeholders(userIds.length)}) and ${where.sql}
             ${after ? 'and (created_time < ? or (created_time = ? and id > ?))' : ''}
         ) ranked where position <= ? order by created_time desc, id`,
        [...userIds, ...where.params, ...(after ?? []), args.first + 1],
      );
      const byUser = new Map<string, BlobRecord[]>(userIds.map((id) => [id, []]));
      for (const row of rows) byUser.get(row.user_id as string)?.push(toBlobRecord(row));
      return userIds.map((id) => byUser.get(id) ?? []);
    });
  });
}

/** How many blobs each user has under one filter, in one SELECT for the request. */
export function blobCounts(scope: Scope, filter: BlobFilter): Loader<string, number> {
  return scope.loaders.get(`blobs.counts:${JSON.stringify(filter)}`, () => {
    return new Loader<string, number>(async (userIds) => {
      const where = filterSql(filter);
      const rows = await scope.em
        .getConnection()
        .execute<{ user_id: string; count: string }[]>(
          `select user_id, count(*) as count from blobs where user_id in (${placeholders(userIds.length)}) and ${where.sql} group by user_id`,
          [...userIds, ...where.params],
        );
      const counts = new Map(rows.map((row) => [row.user_id, Number(row.count)]));
      return userIds.map((id) => counts.get(id) ?? 0);
    });
  });
}
