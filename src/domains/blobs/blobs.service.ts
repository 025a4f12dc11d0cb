import type { EntityManager } from '@mikro-orm/postgresql';
import type { Readable } from 'node:stream';
import type { AfterCommit, ContentStore } from '../../infra/content/content-store';
import type { OwnerAccounts } from '../../kernel/accounts';
import {
  assertDigestMD5,
  assertMediaType,
  digestMismatch,
  EMPTY_MD5,
  type ContentFacts,
  type IncomingContent,
} from '../../kernel/content';
import { conflict, invalid, notFound, unauthenticated } from '../../kernel/errors';
import { isAuthenticated } from '../../kernel/principal';
import { hexId, ID32_PATTERN } from '../../kernel/ids';
import type { CountedObjects } from '../../kernel/quota';
import type { Scope } from '../../kernel/scope';
import { assertUserId, truncate } from '../../kernel/validation';
import type { AccessPolicy, Requirement } from '../permissions/access-policy';
import { BLOB_STATUSES, type BlobRecord, type BlobStatus } from './blob.entity';
import { blobCounts, blobLoader, blobPages } from './blobs.loaders';
import { completeBlob, insertBlob, removeBlob, removeBlobsOf, type BlobFilter } from './blobs.repository';
import { isTimeAndIdKey, pageArgs, pageOf, type PageArgs, type PagedList } from '../../kernel/paging';

/** docs/decisions.md, access rules: uploaders and custodians may add blobs; only owners, custodians and servers read them. */
const MAY_WRITE: Requirement = ['upload', 'custodian'];
const MAY_READ: Requirement = ['custodian'];

export const BLOB_ID_PATTERN = ID32_PATTERN;

export interface NewBlob {
  mediaType?: string;
  digestMD5?: string;
  content?: IncomingContent;
}

/** Where a page of a blob list starts and how long it is (see PageArgs in kernel/paging). */
export interface BlobListPaging {
  first?: number | null;
  after?: string | null;
  offset?: number | null;
}

export interface BlobListOptions extends BlobListPaging {
  mediaTypes?: readonly string[];
  statuses?: readonly string[];
}

export function assertBlobId(value: string, field = 'blobId'): string {
  if (!BLOB_ID_PATTERN.test(value))
    throw invalid(`${field} "${truncate(value)}" is not a valid id (32 lowercase letters or digits)`, field);
  return value;
}

/** A blob list's sort key: the created time (ISO 8601) and the id. */
const isBlobKey = isTimeAndIdKey(BLOB_ID_PATTERN);

/** Cursors of one user's blob list fit no other list. */
const blobListOf = (userId: string) => `blobs:${userId}`;

const objectKeyOf = (userId: string, blobId: string) => `blobs/${userId}/${blobId}/${hexId(16)}`;

/** Every blob counts, `created` ones (waiting for content) too (BLOB_QUOTA). */
const BLOBS: CountedObjects = { kind: 'blobs', table: 'blobs', name: 'blobs' };

/** Opaque per-user content with a status (spec §2.4, §3, §4.6). */
export class BlobsService {
  constructor(
    private readonly access: AccessPolicy,
    private readonly accounts: OwnerAccounts,
    private readonly contents: ContentStore,
  ) {}

  /**
   * A new blob: `available` when it comes with content, else `created` until content is added.
   * An empty body is no content; its digest, if given, must be the MD5 of nothing. Refused
   * (FORBIDDEN) when the account holds its quota of blobs.
   */
  async create(scope: Scope, userId: string, blob: NewBlob): Promise<BlobRecord> {
    assertUserId(userId);
    const mediaType = assertMediaType(blob.mediaType ?? '', 'mediaType');
    const digest = blob.digestMD5 === undefined ? undefined : assertDigestMD5(blob.digestMD5);
    if (digest !== undefined && !blob.content && digest !== EMPTY_MD5) throw digestMismatch(digest, EMPTY_MD5);
    await this.access.assertAllowed(scope, userId, MAY_WRITE);
    await this.accounts.assertExists(scope, userId);
    await this.accounts.assertRoom(scope.em, userId, BLOBS);

    const base = { id: hexId(32), userId, mediaType, createdTime: new Date() };
    const withoutContent = {
      ...base,
      ...{ digestMD5: null, size: null, objectKey: null, modifiedTime: null },
      ...{ status: 'created', revision: 0 },
    };
    if (!blob.content) {
      return scope.em.transactional(async (tx) => {
        await this.accounts.holdRoom(tx, userId, BLOBS);
        await insertBlob(tx, withoutContent as BlobRecord);
        return withoutContent as BlobRecord;
      });
    }
    const objectKey = objectKeyOf(userId, base.id);
    const content = { ...blob.content, mediaType };
    const recordBlob = async (tx: EntityManager, facts: ContentFacts) => {
      await this.accounts.assertHeld(tx, userId);
      await this.accounts.holdRoom(tx, userId, BLOBS);
      // As Tidepool: the record is finalised once the content is in, which counts as its first update.
      const finished = { ...facts, objectKey, status: 'available', revision: 1, modifiedTime: new Date() } as const;
      const record: BlobRecord = facts.size === 0 ? withoutContent : { ...base, ...finished };
      await insertBlob(tx, record);
      return record;
    };
    return this.accounts.uploading(userId, () =>
      this.contents.write(scope.em, objectKey, content, digest, recordBlob, { emptyIsNone: true }),
    );
  }

  /** Adds content to a `created` blob, which makes it `available` (spec §3). */
  async addContent(
    scope: Scope,
    id: string,
    update: { mediaType?: string; digestMD5?: string; content: IncomingContent },
  ): Promise<BlobRecord> {
    const blob = await this.readable(scope, id, MAY_WRITE);
    const mediaType = assertMediaType(update.mediaType ?? blob.mediaType, 'mediaType');
    const digest = update.digestMD5 === undefined ? undefined : assertDigestMD5(update.digestMD5);
    if (blob.status !== 'created') throw conflict(`Blob ${id} already has content`);
    const objectKey = objectKeyOf(blob.userId, id);
    const content = { ...update.content, mediaType };
    const recordContent = async (tx: EntityManager, facts: ContentFacts) => {
      if (facts.size === 0) throw invalid('The content is empty: a blob gets content from a non-empty body', 'content');
      await this.accounts.assertHeld(tx, blob.userId);
      const revision = blob.revision + 1;
      const changes = { ...facts, mediaType, objectKey, status: 'available', revision, modifiedTime: new Date() };
      if (!(await completeBlob(tx, id, blob.revision, changes)))
        throw conflict(`Blob ${id} was changed by another request; nothing was stored`);
      return changes;
    };
    const changes = await this.accounts.uploading(blob.userId, () =>
      this.contents.write(scope.em, objectKey, content, digest, recordContent),
    );
    const updated = { ...blob, ...changes };
    blobLoader(scope).clear(id).prime(id, updated);
    return updated;
  }

  async get(scope: Scope, id: string): Promise<BlobRecord> {
    return this.readable(scope, id, MAY_READ);
  }

  /** The blob's bytes; a blob without content has none to give. */
  async openContent(scope: Scope, id: string): Promise<{ blob: BlobRecord; stream: Readable }> {
    const blob = await this.readable(scope, id, MAY_READ);
    if (blob.objectKey === null || blob.objectKey === undefined) throw notFound(`Blob ${id} has no content yet`);
    return { blob, stream: await this.contents.open(blob.objectKey) };
  }

  /**
   * A page of the blobs of `userId`, newest first; by default only `available` ones, as Tidepool
   * lists them. The owner, its custodians and servers may read them.
   */
  async list(scope: Scope, userId: string, options: BlobListOptions = {}): Promise<PagedList<BlobRecord>> {
    assertUserId(userId);
    const filter = this.filter(options);
    const args = pageArgs(blobListOf(userId), options.first, options.after, isBlobKey, options.offset);
    await this.access.assertAllowed(scope, userId, MAY_READ);
    return this.page(scope, userId, filter, args);
  }

  /**
   * The same for one of many users listed in a request (pages of many users cost one query
   * together); a user the caller may not read lists nothing.
   */
  async listOf(scope: Scope, userId: string, options: BlobListOptions = {}): Promise<PagedList<BlobRecord>> {
    const filter = this.filter(options);
    const args = pageArgs(blobListOf(userId), options.first, options.after, isBlobKey, options.offset);
    if (!(await this.access.isAllowed(scope, userId, MAY_READ))) {
      return { page: pageOf(blobListOf(userId), args, [], () => []), count: async () => 0 };
    }
    return this.page(scope, userId, filter, args);
  }

  private async page(scope: Scope, userId: string, filter: BlobFilter, args: PageArgs): Promise<PagedList<BlobRecord>> {
    const rows = await blobPages(scope, filter, args).load(userId);
    return {
      page: pageOf(blobListOf(userId), args, rows, (blob) => [blob.createdTime.toISOString(), blob.id]),
      count: () => blobCounts(scope, filter).load(userId),
    };
  }

  /** Removes a blob and its bytes; with `revision`, only if the blob is still at that revision. */
  async delete(scope: Scope, id: string, revision?: number): Promise<void> {
    if (revision !== undefined && (!Number.isInteger(revision) || revision < 0))
      throw invalid('revision must be an integer of at least 0', 'revision');
    const blob = await this.readable(scope, id, MAY_READ);
    if (revision !== undefined && blob.revision !== revision)
      throw notFound(`Blob ${id} at revision ${revision} does not exist`);
    await this.contents.remove(scope.em, async (tx) => {
      if (!(await removeBlob(tx, id, blob.revision))) throw notFound(`Blob ${id} was changed or removed meanwhile`);
      return blob.objectKey ? [blob.objectKey] : [];
    });
  }

  async deleteAllOf(scope: Scope, userId: string): Promise<void> {
    assertUserId(userId);
    await this.access.assertAllowed(scope, userId, MAY_READ);
    await this.contents.remove(scope.em, (tx) => removeBlobsOf(tx, userId));
  }

  /** Account deletion, inside its transaction: every blob record now, the bytes once it commits. */
  async forgetUser(scope: Scope, userId: string): Promise<AfterCommit> {
    return this.contents.removeWithin(scope.em, await removeBlobsOf(scope.em, userId));
  }

  private filter(options: BlobListOptions): BlobFilter {
    const statuses = options.statuses?.length ? options.statuses : ['available'];
    for (const status of statuses)
      if (!BLOB_STATUSES.includes(status as BlobStatus))
        throw invalid(`status "${status}" is not one of ${BLOB_STATUSES.join(', ')}`, 'status');
    const mediaTypes = options.mediaTypes?.map((type) => assertMediaType(type));
    return { statuses: [...new Set(statuses)].sort() as BlobStatus[], mediaTypes };
  }

  /** The blob, if the caller may act on its owner as `requirement` says; else the right error. */
  private async readable(scope: Scope, id: string, requirement: Requirement): Promise<BlobRecord> {
    assertBlobId(id);
    if (!isAuthenticated(scope.principal)) throw unauthenticated();
    const blob = await blobLoader(scope).load(id);
    if (!blob) throw notFound(`Blob ${id} does not exist`);
    await this.access.assertAllowed(scope, { userId: blob.userId, objectIds: [id] }, requirement);
    return blob;
  }
}
