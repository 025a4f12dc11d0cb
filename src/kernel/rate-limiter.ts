import { LRUCache } from 'lru-cache';

interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * A token bucket per key: `perSecond` on average, bursts of `capacity` (twice the rate unless
 * given). Kept per instance, so the limit a client meets scales with the number of instances;
 * it is a brake, not a quota.
 */
export class RateLimiter {
  private readonly buckets = new LRUCache<string, Bucket>({ max: 50_000 });

  constructor(
    private readonly perSecond: number,
    private readonly capacity = perSecond * 2,
  ) {}

  /** Seconds to wait before the next request would be allowed; 0 lets it through now. */
  take(key: string, now = Date.now()): number {
    const { capacity } = this;
    const bucket = this.buckets.get(key) ?? { tokens: capacity, updated: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.updated) / 1000) * this.perSecond);
    bucket.updated = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / this.perSecond);
  }
}
