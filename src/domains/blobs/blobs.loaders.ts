import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import type { BlobRecord } from './blob.entity';
import { blobCountsOf, blobPagesOf, blobsByIds, type BlobFilter } from './blobs.repository';

/** Blob metadata by id, batched per request. */
export function blobLoader(scope: Scope): Loader<string, BlobRecord | null> {
  return scope.loaders.get('blobs.byId', () => {
    return new Loader<string, BlobRecord | null>(async (ids) => {
      const rows = await blobsByIds(scope.em, ids);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    });
  });
}

/** A page of the blobs of many users under one filter, newest first: one SELECT for the request. */
export function blobPages(scope: Scope, filter: BlobFilter, args: PageArgs): Loader<string, BlobRecord[]> {
  return scope.loaders.get(`blobs.pages:${JSON.stringify([filter, args])}`, () => {
    return new Loader<string, BlobRecord[]>((userIds) => blobPagesOf(scope.em, userIds, filter, args));
  });
}

/** How many blobs each user has under one filter, in one SELECT for the request. */
export function blobCounts(scope: Scope, filter: BlobFilter): Loader<string, number> {
  return scope.loaders.get(`blobs.counts:${JSON.stringify(filter)}`, () => {
    return new Loader<string, number>((userIds) => blobCountsOf(scope.em, userIds, filter));
  });
}
