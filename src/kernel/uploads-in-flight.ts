import { rateLimited } from './errors';

/** What a refused upload asks its client to wait: about what a small upload takes. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Uploads into one account that may be in flight at once on this instance. Each holds a stream
 * into the object store, a descriptor and an announcement (pending_objects) until it ends: the
 * object quotas bound what an account keeps, this bounds what it can have open meanwhile.
 */
export class UploadsInFlight {
  private readonly counts = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Runs `upload` as one of the account's uploads, or refuses (RATE_LIMITED) when it has `limit` open. */
  async hold<T>(userId: string, upload: () => Promise<T>): Promise<T> {
    const open = this.counts.get(userId) ?? 0;
    if (open >= this.limit)
      throw rateLimited(
        `The account has ${this.limit} uploads in progress, the most it may have at once: retry when one has ended`,
        RETRY_AFTER_SECONDS,
      );
    this.counts.set(userId, open + 1);
    try {
      return await upload();
    } finally {
      const left = this.counts.get(userId)! - 1;
      if (left) this.counts.set(userId, left);
      else this.counts.delete(userId);
    }
  }
}
