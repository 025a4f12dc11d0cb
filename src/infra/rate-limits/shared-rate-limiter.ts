import type { Orm } from '../database/orm';
import { sqlOutsideTransactions } from '../database/sql-outside-transactions';

/** How long a bucket may sit unused before its row is swept (it is full long before). */
const IDLE_SECONDS = 3600;
/** One take in this many also sweeps idle buckets: no timer to stop, and the table stays small. */
const SWEEP_EVERY = 1000;

/**
 * Takes a token if the bucket has one after refilling it at `perSecond` since its last take (at
 * most `capacity`); no row comes back when it has none. One statement, so instances taking from
 * the same bucket at once each see the other's take. Refused takes leave the bucket as it was.
 */
const TAKE = `
  insert into rate_buckets as bucket (key, tokens, updated_at) values (?, ?::float8 - 1, clock_timestamp())
  on conflict (key) do update
     set tokens = least(?::float8, bucket.tokens + extract(epoch from clock_timestamp() - bucket.updated_at)::float8 * ?) - 1,
         updated_at = clock_timestamp()
   where least(?::float8, bucket.tokens + extract(epoch from clock_timestamp() - bucket.updated_at)::float8 * ?) >= 1
  returning tokens`;

/**
 * A token bucket per key kept in PostgreSQL: `perSecond` on average, bursts of `capacity` (twice
 * the rate unless given). Every instance takes from the same buckets, so behind a load balancer
 * a client meets one limit, not one per instance (docs/operations.md).
 */
export class SharedRateLimiter {
  private takes = 0;

  constructor(
    private readonly orm: Orm,
    private readonly perSecond: number,
    private readonly capacity = perSecond * 2,
  ) {}

  /** Seconds to wait before the next request would be allowed; 0 lets this one through. */
  async take(key: string): Promise<number> {
    const sql = sqlOutsideTransactions(this.orm);
    this.takes += 1;
    if (this.takes % SWEEP_EVERY === 0)
      await sql.run(`delete from rate_buckets where updated_at < clock_timestamp() - ? * interval '1 second'`, [
        IDLE_SECONDS,
      ]);
    const { capacity, perSecond } = this;
    const taken = await sql.rows(TAKE, [key, capacity, capacity, perSecond, capacity, perSecond]);
    // Refused: the bucket holds less than one token, which takes at most 1 / perSecond to come.
    return taken.length ? 0 : Math.max(1, Math.ceil(1 / perSecond));
  }
}
