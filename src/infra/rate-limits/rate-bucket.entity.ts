import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One token bucket of a limit every instance shares (shared-rate-limiter.ts): the tokens left at
 * `updatedAt`, refilled at the limit's rate since. A bucket idle long enough is full, so its row
 * can go (`updatedAt` is indexed for that sweep).
 */
export const RateBucketSchema = defineEntity({
  name: 'RateBucket',
  tableName: 'rate_buckets',
  properties: {
    key: p.string().primary().length(200),
    tokens: p.double(),
    updatedAt: p.datetime().index(),
  },
});

export type RateBucket = InferEntity<typeof RateBucketSchema>;
