import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../infra/database/sql-runner';
import { AppError } from './errors';

/**
 * Per-account bounds on how many objects of a kind an account may hold: without them, one
 * account could create objects until every list of it, and the disk, paid for it (issue 27).
 */
export type QuotaKind = 'blobs' | 'deviceLogs' | 'datasets' | 'clinics';

/** The most objects of each kind one account may hold (BLOB_QUOTA, DEVICE_LOG_QUOTA, DATASET_QUOTA, CLINIC_QUOTA). */
export type ObjectQuotas = Readonly<Record<QuotaKind, number>>;

/** Objects a quota counts: the rows of `table` whose `user_id` is the account. */
export interface CountedObjects {
  kind: QuotaKind;
  table: string;
  /** How messages name them, in the plural ("device logs"). */
  name: string;
}

/** FORBIDDEN, naming the quota and its value, as `details` repeat for programs. */
export const quotaReached = (objects: CountedObjects, limit: number) =>
  new AppError('FORBIDDEN', `The account holds ${limit} ${objects.name}, its quota: remove some before adding more`, {
    quota: objects.kind,
    limit,
  });

/** How many objects the account holds, counted no further than `limit` (so the cost is bounded too). */
async function countUpTo(em: EntityManager, objects: CountedObjects, userId: string, limit: number): Promise<number> {
  const [row] = await sqlOf(em).rows<{ count: number }>(
    `select count(*)::int as count from (select 1 from ${objects.table} where user_id = ? limit ?) held`,
    [userId, limit],
  );
  return row!.count;
}

/** Refuses when the account already holds `limit` objects; a check, not a hold (see holdBelowQuota). */
export async function assertBelowQuota(
  em: EntityManager,
  objects: CountedObjects,
  userId: string,
  limit: number,
): Promise<void> {
  if ((await countUpTo(em, objects, userId, limit)) >= limit) throw quotaReached(objects, limit);
}

/**
 * In the transaction that inserts a new object: takes the account's lock for this kind (held
 * until the transaction ends), then counts. Creations racing at the quota queue on the lock and
 * each counts what the others committed, so at most `limit` objects ever exist. Two statements,
 * not one: a statement reads the rows committed when it started, before it waited for the lock.
 */
export async function holdBelowQuota(
  tx: EntityManager,
  objects: CountedObjects,
  userId: string,
  limit: number,
): Promise<void> {
  await sqlOf(tx).rows('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`quota:${objects.kind}:${userId}`]);
  await assertBelowQuota(tx, objects, userId, limit);
}
