import type { EntityManager } from '@mikro-orm/postgresql';
import type { Readable } from 'node:stream';
import {
  ContentMeter,
  digestMismatch,
  relay,
  tooLarge,
  type ContentFacts,
  type IncomingContent,
} from '../../kernel/content';
import { AppError, invalid, isAppError } from '../../kernel/errors';
import { asAppError } from '../failures';
import type { Orm } from '../database/orm';
import type { Logger } from '../logger';
import { ObjectDigestMismatchError, ObjectNotFoundError, type ObjectStore } from '../object-store/object-store';
import { PendingObjects } from './pending-objects';

export interface ContentStoreOptions {
  /** The longest an upload may take; its announcement's lease runs a little longer. */
  uploadTimeoutMs: number;
  /** The most bytes one content may hold (CONTENT_SIZE_LIMIT_BYTES); more is TOO_LARGE. */
  sizeLimitBytes: number;
}

/** Announcements the sweeper settles per round. */
const SWEEP_BATCH = 500;

/** Infrastructure failures as the AppErrors clients see; anything else unchanged. */
const asClientError = (error: unknown): unknown =>
  asAppError(error, 'The database is unavailable; nothing was stored') ?? error;

/**
 * Beyond an upload's deadline, time for its record transaction before the sweeper may act; also
 * how long a removal (or a sweeper's claim) has to delete bytes before another may try.
 */
export const uploadGraceMs = (uploadTimeoutMs: number) => Math.min(60_000, uploadTimeoutMs / 2);

const tookTooLong = (timeoutMs: number) => invalid(`The upload took longer than ${timeoutMs / 1000} s`);

/** What a removal inside someone else's transaction leaves to do once that transaction commits. */
export type AfterCommit = () => Promise<void>;

/**
 * Bytes in the object store and metadata in PostgreSQL that never disagree. Every write or
 * removal is announced in `pending_objects` before it touches the store and retired in the same
 * transaction that records the metadata, so a crash, a dead dependency or a vanished client at
 * any point leaves a row the sweeper uses to remove whatever bytes have no record. Removals name
 * exact keys, never prefixes: an upload racing a removal keeps both its bytes and its record.
 */
export class ContentStore {
  private readonly pending = new PendingObjects();
  /** uploadGraceMs of the upload timeout. */
  private readonly leaseMarginMs: number;

  constructor(
    private readonly orm: Orm,
    private readonly store: ObjectStore,
    private readonly logger: Logger,
    private readonly options: ContentStoreOptions,
  ) {
    this.leaseMarginMs = uploadGraceMs(options.uploadTimeoutMs);
  }

  /**
   * Streams `content` to `key`, measuring it and checking `expectedDigest`, then runs `record`
   * in a transaction with the measured facts. Either both the bytes and the record exist
   * afterwards or, once cleanup or the sweeper has run, neither does. With `emptyIsNone`, an
   * empty body is no content: `record` sees size 0 and must not refer to `key`, whose (empty)
   * object is removed.
   */
  async write<T>(
    em: EntityManager,
    key: string,
    content: IncomingContent,
    expectedDigest: string | undefined,
    record: (tx: EntityManager, facts: ContentFacts) => Promise<T>,
    { emptyIsNone = false }: { emptyIsNone?: boolean } = {},
  ): Promise<T> {
    const { sizeLimitBytes, uploadTimeoutMs } = this.options;
    if ((content.declaredSize ?? 0) > sizeLimitBytes) throw tooLarge(sizeLimitBytes);
    const leaseUntil = new Date(Date.now() + uploadTimeoutMs + this.leaseMarginMs);
    await this.pending.announce(em, [key], leaseUntil).catch((error) => {
      throw asClientError(error);
    });
    try {
      const facts = await this.transfer(key, content, expectedDigest);
      if (expectedDigest !== undefined && expectedDigest !== facts.digestMD5)
        throw digestMismatch(expectedDigest, facts.digestMD5);
      const keep = facts.size > 0 || !emptyIsNone;
      const result = await em.transactional(async (tx) => {
        const result = await record(tx, facts);
        if (keep && !(await this.pending.retire(tx, key, leaseUntil))) throw tookTooLong(uploadTimeoutMs);
        return result;
      });
      if (!keep) await this.discard(em, [key], leaseUntil);
      return result;
    } catch (error) {
      await this.discard(em, [key], leaseUntil);
      throw asClientError(error);
    }
  }

  private async transfer(key: string, content: IncomingContent, expectedDigest?: string): Promise<ContentFacts> {
    const checkedByStore =
      expectedDigest !== undefined && this.store.checksDigest({ size: content.declaredSize, md5: expectedDigest });
    const meter = relay(
      content.stream,
      new ContentMeter({
        limit: this.options.sizeLimitBytes,
        digestCheckedByStore: checkedByStore ? expectedDigest : undefined,
      }),
    );
    const { uploadTimeoutMs } = this.options;
    const timer = setTimeout(() => meter.destroy(tookTooLong(uploadTimeoutMs)), uploadTimeoutMs);
    try {
      await this.store.put(key, meter, {
        contentType: content.mediaType,
        size: content.declaredSize,
        md5: expectedDigest,
      });
    } catch (error) {
      meter.destroy();
      if (meter.errored && isAppError(meter.errored)) throw meter.errored;
      // Only a store that checks the digest itself refuses one, and then the meter did not hash.
      if (error instanceof ObjectDigestMismatchError) throw digestMismatch(expectedDigest!);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return meter.facts();
  }

  /** Runs `unrecord` (which removes metadata and returns its object keys), then removes those bytes. */
  async remove(em: EntityManager, unrecord: (tx: EntityManager) => Promise<readonly string[]>): Promise<void> {
    const removeBytes = await em
      .transactional(async (tx) => this.removeWithin(tx, await unrecord(tx)))
      .catch((error) => {
        throw asClientError(error);
      });
    await removeBytes();
  }

  /**
   * Inside a caller's transaction that has removed the metadata of `keys`: announces their
   * removal, and returns the step that removes the bytes once that transaction has committed.
   */
  async removeWithin(tx: EntityManager, keys: readonly string[]): Promise<AfterCommit> {
    const leaseUntil = new Date(Date.now() + this.leaseMarginMs);
    await this.pending.announce(tx, keys, leaseUntil);
    return () => this.discard(this.orm.em.fork(), keys, leaseUntil);
  }

  /** The stored bytes; NOT_FOUND-free by contract: metadata exists, so the bytes must. */
  async open(key: string): Promise<Readable> {
    try {
      return await this.store.get(key);
    } catch (error) {
      if (error instanceof ObjectNotFoundError)
        throw new AppError('UNAVAILABLE', 'The stored content is missing from the object store', {}, { cause: error });
      throw asClientError(error);
    }
  }

  /**
   * Removes the bytes of every announcement whose lease has passed, and the temporary files of
   * uploads a killed process left; returns how many announcements and files it settled.
   */
  async sweep(): Promise<number> {
    const em = this.orm.em.fork();
    // Every upload still running began after this: its deadline would have ended it otherwise.
    const uploadsBegan = new Date(Date.now() - this.options.uploadTimeoutMs - this.leaseMarginMs);
    let settled = await this.store.removeUnfinishedWrites(uploadsBegan);
    for (;;) {
      const leaseUntil = new Date(Date.now() + this.leaseMarginMs);
      const keys = await this.pending.claimExpired(em, SWEEP_BATCH, leaseUntil);
      if (!keys.length) return settled;
      await this.store.deleteMany(keys);
      await this.pending.release(em, keys, leaseUntil);
      settled += keys.length;
    }
  }

  /**
   * Best effort: deletes the bytes, then the announcements that are still the caller's. A
   * failure leaves them, so the sweeper tries again once their lease has passed.
   */
  private async discard(em: EntityManager, keys: readonly string[], leaseUntil: Date): Promise<void> {
    if (!keys.length) return;
    try {
      await this.store.deleteMany(keys);
      await this.pending.release(em, keys, leaseUntil);
    } catch (error) {
      this.logger.warn(
        { err: error, keys: keys.slice(0, 10) },
        'could not discard stored content yet; the sweeper will retry',
      );
    }
  }
}
