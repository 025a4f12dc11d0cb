import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../database/sql-runner';
import { PendingObjectSchema } from './pending-object.entity';

/** Rows per statement when many keys are announced or released at once. */
const BATCH = 1000;

function* batches(keys: readonly string[]): Generator<string[]> {
  for (let start = 0; start < keys.length; start += BATCH) yield keys.slice(start, start + BATCH);
}

/**
 * The ledger of objects that may exist without a record (see PendingObjectSchema). Every change
 * is conditional on the lease its caller set, so an upload, a removal and the sweeper can race
 * over one key and exactly one of them settles it.
 */
export class PendingObjects {
  /** Records that `keys` may exist without metadata until `leaseUntil`. */
  async announce(em: EntityManager, keys: readonly string[], leaseUntil: Date): Promise<void> {
    // One plain statement on the caller's transaction: this runs on every upload, and the ORM's
    // upsert machinery cost more than the round trip.
    for (const batch of batches(keys)) {
      await sqlOf(em).run(
        `insert into pending_objects (key, lease_until) values ${batch.map(() => '(?, ?)').join(', ')}
           on conflict (key) do update set lease_until = excluded.lease_until`,
        batch.flatMap((key) => [key, leaseUntil]),
      );
    }
  }

  /**
   * In the transaction that records the object: removes the announcement, if it is still the
   * caller's. False when the sweeper has claimed it (the upload outlived its lease), in which
   * case the bytes are being removed and the record must not commit.
   */
  async retire(tx: EntityManager, key: string, leaseUntil: Date): Promise<boolean> {
    return (await tx.nativeDelete(PendingObjectSchema, { key, leaseUntil })) === 1;
  }

  /** After the bytes are gone: drops the announcements that are still the caller's. */
  async release(em: EntityManager, keys: readonly string[], leaseUntil: Date): Promise<void> {
    for (const batch of batches(keys)) await em.nativeDelete(PendingObjectSchema, { key: { $in: batch }, leaseUntil });
  }

  /**
   * Takes over up to `limit` announcements whose lease has passed by giving them a new lease,
   * `leaseUntil`, in one statement; rows another sweeper or transaction holds are skipped.
   */
  async claimExpired(em: EntityManager, limit: number, leaseUntil: Date): Promise<string[]> {
    const rows = await sqlOf(em).rows<{ key: string }>(
      `update pending_objects set lease_until = ?
         where key in (select key from pending_objects where lease_until < now()
                       order by lease_until limit ? for update skip locked)
         returning key`,
      [leaseUntil, limit],
    );
    return rows.map((row) => row.key);
  }
}
