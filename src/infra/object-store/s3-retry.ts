import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Which failures a call may be sent again after:
 * - `replayable`: throttling answers and broken connections. For requests whose effect is the
 *   same however often they arrive (GET, HEAD, DELETE, listing, a PUT of a buffer in memory).
 * - `refused`: throttling answers only. A server that answered SlowDown or 503 did nothing, but
 *   after a broken connection a POST (starting or completing a multipart upload) may have taken
 *   effect, and sending it again would not mean the same.
 * A body streamed from the client cannot be read a second time: such a request is never retried.
 */
export type RetryKind = 'replayable' | 'refused';

export interface RetryPolicy {
  /** Attempts after the first (0: none). */
  maxRetries: number;
  /** The cap of the first backoff; each retry doubles it, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Waits `ms` between attempts; a timer unless a test replaces it. */
  wait?: (ms: number) => Promise<unknown>;
  /** A number in [0, 1): the jitter; Math.random unless a test replaces it. */
  random?: () => number;
}

/** Codes of a connection the server (or a proxy on the way) cut; Node reports "socket hang up" as ECONNRESET. */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);

const field = (error: unknown, name: string): unknown => (error as Record<string, unknown> | null)?.[name];

/** An answer that says "not now": S3's SlowDown, or any 503 (ServiceUnavailable, a proxy's page). */
export function isThrottled(error: unknown): boolean {
  return field(error, 'code') === 'SlowDown' || Number(field(error, 'httpstatus')) === 503;
}

export function isReset(error: unknown): boolean {
  const code = field(error, 'code');
  return (typeof code === 'string' && RESET_CODES.has(code)) || field(error, 'message') === 'socket hang up';
}

const retriable = (kind: RetryKind, error: unknown) => isThrottled(error) || (kind === 'replayable' && isReset(error));

/**
 * The wait before retry number `retry` (0 for the first): "full jitter" exponential backoff, a
 * uniform draw below min(max, base * 2^retry), so clients throttled together do not come back
 * together.
 */
export function backoffDelay(retry: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor((policy.random ?? Math.random)() * ceiling);
}

/** Runs `operation`, again after a backoff while it fails in a way `kind` allows retrying, at most 1 + maxRetries times. */
export async function withRetries<T>(policy: RetryPolicy, kind: RetryKind, operation: () => Promise<T>): Promise<T> {
  const wait = policy.wait ?? sleep;
  for (let retry = 0; ; retry++) {
    try {
      return await operation();
    } catch (error) {
      if (retry >= policy.maxRetries || !retriable(kind, error)) throw error;
      await wait(backoffDelay(retry, policy));
    }
  }
}
