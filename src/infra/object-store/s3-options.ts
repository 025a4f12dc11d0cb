import type { Client } from 'minio';
import type { S3Settings } from '../../config';
import { connect } from './s3-connection';

/** Size of each multipart part, and the largest body of unknown size sent in a single PUT. */
export const S3_PART_SIZE = 8 * 1024 * 1024;
/** S3's largest single PUT: a body of known size up to this is streamed in one request. */
export const SINGLE_PUT_LIMIT = 5 * 1024 ** 3;

export interface S3StoreOptions {
  /** Longest wait for a TCP connection to the endpoint (default 3 s). */
  connectTimeoutMs?: number;
  /**
   * Longest silence on an open request, i.e. no byte sent or received (default 15 s). A bound on
   * inactivity, not on total time: a slow but moving 1 GiB transfer is not cut off.
   */
  idleTimeoutMs?: number;
  /** Part size for multipart uploads (default 8 MiB; S3 needs >= 5 MiB). */
  partSize?: number;
  /** Keys per list request and per multi-object delete (default and S3's maximum: 1000). */
  pageSize?: number;
  /**
   * Times a request that can be sent again is retried after SlowDown, a 503 or a reset connection
   * (default 3; 0: never).
   */
  maxRetries?: number;
  /** Cap of the first random backoff, doubled at each retry up to 2 s (default 100 ms). */
  retryBaseDelayMs?: number;
  /** How to wait between attempts (default: a timer); tests pass one that does not sleep. */
  retryWait?: (ms: number) => Promise<unknown>;
}

export const DEFAULTS = {
  connectTimeoutMs: 3_000,
  idleTimeoutMs: 15_000,
  partSize: S3_PART_SIZE,
  pageSize: 1000,
  maxRetries: 3,
  retryBaseDelayMs: 100,
};

/** The longest backoff between two attempts. */
export const MAX_RETRY_DELAY_MS = 2_000;

/** The minio client for these settings (path-style addressing, region pinned, no retries). */
export function createMinioClient(settings: S3Settings, options: S3StoreOptions = {}): Client {
  return connect(settings, { ...DEFAULTS, ...options }).client;
}
