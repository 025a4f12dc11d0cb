import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { placeholders } from '../../kernel/sql';
import { BlobSchema, type BlobRecord, type BlobStatus } from './blob.entity';

export interface BlobFilter {
  mediaTypes?: readonly string[];
  statuses: readonly BlobStatus[];
  page: number;
  size: number;
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
 * The blobs of many users under one filter, newest first, paged per user: listing the blobs of
 * a hundred users costs one SELECT.
 */
export function blobsOfUsers(scope: Scope, filter: BlobFilter): Loader<string, BlobRecord[]> {
  return scope.loaders.get(`blobs.ofUsers:${JSON.stringify(filter)}`, () => {
    return new Loader<string, BlobRecord[]>(async (userIds) => {
      const mediaTypes = filter.mediaTypes ?? [];
      const rows = await scope.em.getConnection().execute<Record<string, unknown>[]>(
        `select * from (
           select *, row_number() over (partition by user_id order by created_time desc, id) as position
           from blobs
           where user_id in (${placeholders(userIds.length)}) and status in (${placeholders(filter.statuses.length)})
             ${mediaTypes.length ? `and media_type in (${placeholders(mediaTypes.length)})` : ''}
         ) ranked where position > ? and position <= ? order by created_time desc, id`,
        [...userIds, ...filter.statuses, ...mediaTypes, filter.page * filter.size, (filter.page + 1) * filter.size],
      );
      const byUser = new Map<string, BlobRecord[]>(userIds.map((id) => [id, []]));
      for (const row of rows) byUser.get(row.user_id as string)?.push(scope.em.map(BlobSchema, row));
      return userIds.map((id) => byUser.get(id) ?? []);
    });
  });
}
