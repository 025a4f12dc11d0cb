import { describe, expect, it } from '@jest/globals';
import { RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  it('allows bursts of twice the rate, then one request per refill, per key', () => {
    const limiter = new RateLimiter(5);
    const start = 1_000_000;
    const allowed = Array.from({ length: 12 }, () => limiter.take('a', start)).filter((wait) => wait === 0).length;
    expect(allowed).toBe(10);
    expect(limiter.take('a', start)).toBe(1);
    expect(limiter.take('b', start)).toBe(0);
    expect(limiter.take('a', start + 200)).toBe(0);
    expect(limiter.take('a', start + 200)).toBeGreaterThan(0);
  });

  it('allows bursts of the capacity it is given instead', () => {
    const limiter = new RateLimiter(5, 1);
    expect([limiter.take('a', 0), limiter.take('a', 0)]).toEqual([0, 1]);
    expect(limiter.take('a', 200)).toBe(0);
  });
});
