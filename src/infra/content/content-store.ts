import type { EntityManager } from '@mikro-orm/postgresql';
import type { Readable } from 'node:stream';
import {
  ContentMeter,
  digestMismatch,
  relay,
  tooLarge,
  CONTENT_SIZE_LIMIT,
  type ContentFacts,
  type IncomingContent,
} from '../../kernel/content';
import { AppError, invalid, isAppError } from '../../kernel/errors';
import { asAppError } from '../failures';
import type { Orm } from '../database/orm';
import type { Logger } from '../logger';
import { ObjectNotFoundError, type ObjectStore } from '../object-store/object-store';
import { PendingObjectSchema } from './pending-object.entity';

export interface ContentStoreOptions {
  /** The longest an upload may take; also how long a pending object is left alone. */
  uploadTimeoutMs: number;
}

/** Infrastructure failures as the AppErrors clients see; anything else unchanged. */
const asClientError = (error: unknown): unknown =>
  asAppError(error, 'The database is unavailable; nothing was stored') ?? error;

/**
 * Bytes in the object store and metadata in PostgreSQL that never disagree. Every write or
 * removal is announced in `pending_objects` before it touches the store and retired in the same
 * transaction that records the metadata, so a crash, a dead dependency or a vanished client at
 * any point leaves a row the sweeper uses to remove whatever bytes have no record.
 */
export class ContentStore {
  constructor(
    private readonly orm: Orm,
    private readonly store: ObjectStore,
    private readonly logger: Logger,
    private readonly options: ContentStoreOptions,
  ) {}

  /**
   * Streams `content` to `key`, measuring it and checking `expectedDigest`, then runs `record`
   * in a transaction with the measured facts. Either both the bytes and the record exist
   * afterwards or, once cleanup or the sweeper has run, neither does.
   */
  async write<T>(
    em: EntityManager,
    key: string,
    content: IncomingContent,
    expectedDigest: string | undefined,
    record: (tx: EntityManager, facts: ContentFacts) => Promise<T>,
  ): Promise<T> {
    if ((content.declaredSize ?? 0) > CONTENT_SIZE_LIMIT) throw tooLarge();
    await this.announce(em, [key], false, new Date(Date.now() + this.options.uploadTimeoutMs)).catch((error) => {
      throw asClientError(error);
    });
    try {
      const facts = await this.transfer(key, content);
      if (expectedDigest !== undefined && expectedDigest !== facts.digestMD5)
        throw digestMismatch(expectedDigest, facts.digestMD5);
      return await em.transactional(async (tx) => {
        const result = await record(tx, facts);
        await tx.nativeDelete(PendingObjectSchema, { key });
        return result;
      });
    } catch (error) {
      await this.discard(em, key, false);
      throw asClientError(error);
    }
  }

  private async transfer(key: string, content: IncomingContent): Promise<ContentFacts> {
    const meter = relay(content.stream, new ContentMeter());
    const timer = setTimeout(
      () => meter.destroy(invalid(`The upload took longer than ${this.options.uploadTimeoutMs / 1000} s`)),
      this.options.uploadTimeoutMs,
    );
    try {
      await this.store.put(key, meter, { contentType: content.mediaType });
    } catch (error) {
      meter.destroy();
      throw meter.errored && isAppError(meter.errored) ? meter.errored : error;
    } finally {
      clearTimeout(timer);
    }
    return meter.facts();
  }

  /** Removes the objects under `keys` after `unrecord` has removed their metadata. */
  async remove(
    em: EntityManager,
    keys: readonly string[],
    unrecord: (tx: EntityManager) => Promise<void>,
    { prefix = false }: { prefix?: boolean } = {},
  ): Promise<void> {
    await em
      .transactional(async (tx) => {
        await unrecord(tx);
        await this.announce(tx, keys, prefix, new Date());
      })
      .catch((error) => {
        throw asClientError(error);
      });
    for (const key of keys) await this.discard(em, key, prefix);
  }

  /** The stored bytes; NOT_FOUND-free by contract: metadata exists, so the bytes must. */
  async open(key: string): Promise<Readable> {
    try {
      return await this.store.get(key);
    } catch (error) {
      if (error instanceof ObjectNotFoundError) throw new AppError('UNAVAILABLE', `The content of ${key} is missing`);
      throw asClientError(error);
    }
  }

  /** Finishes every expired pending write or removal; returns how many it settled. */
  async sweep(): Promise<number> {
    const em = this.orm.em.fork();
    const expired = await em.find(
      PendingObjectSchema,
      { leaseUntil: { $lt: new Date() } },
      { limit: 500, orderBy: { leaseUntil: 'asc' } },
    );
    for (const pending of expired) await this.discard(em, pending.key, pending.isPrefix, pending.leaseUntil);
    return expired.length;
  }

  private async announce(em: EntityManager, keys: readonly string[], isPrefix: boolean, leaseUntil: Date) {
    if (!keys.length) return;
    await em.upsertMany(
      PendingObjectSchema,
      keys.map((key) => ({ key, isPrefix, leaseUntil })),
    );
  }

  /**
   * Best effort: deletes the bytes, then the pending row (only if nobody renewed it since).
   * A failure leaves the row, so the sweeper tries again later.
   */
  private async discard(em: EntityManager, key: string, isPrefix: boolean, leaseUntil?: Date): Promise<void> {
    try {
      if (isPrefix) await this.store.deletePrefix(key);
      else await this.store.delete(key);
      await em.nativeDelete(PendingObjectSchema, leaseUntil ? { key, leaseUntil } : { key });
    } catch (error) {
      this.logger.warn({ err: error, key }, 'could not discard stored content yet; the sweeper will retry');
    }
  }
}
