import { finished, type Readable } from 'node:stream';
import { rateLimited } from './errors';

/** What a refused caller is told: the message (given the limit) and the seconds to wait. */
export interface InFlightRefusal {
  message: (limit: number) => string;
  retryAfterSeconds: number;
}

/**
 * Work of one kind that one key (an account, a caller) may have in flight at once on this
 * instance; one more is refused (RATE_LIMITED). Quotas bound what a key keeps; this bounds what
 * it holds open meanwhile (streams, descriptors, database reads). A place is taken before the
 * work starts and given back exactly once, however the work ends.
 */
export class InFlightLimit {
  private readonly counts = new Map<string, number>();

  constructor(
    readonly limit: number,
    private readonly refusal: InFlightRefusal,
  ) {}

  /** Takes one of `key`'s places, or refuses; the function returned gives it back (later calls do nothing). */
  take(key: string): () => void {
    const open = this.counts.get(key) ?? 0;
    if (open >= this.limit) throw rateLimited(this.refusal.message(this.limit), this.refusal.retryAfterSeconds);
    this.counts.set(key, open + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = this.counts.get(key)! - 1;
      if (left) this.counts.set(key, left);
      else this.counts.delete(key);
    };
  }

  /** Runs `work` in one of `key`'s places, given back when it settles. */
  async hold<T>(key: string, work: () => Promise<T>): Promise<T> {
    const release = this.take(key);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /**
   * Opens a stream in one of `key`'s places, held until the stream ends, fails or is closed (its
   * reader gone), not merely until it is opened: a download holds its reads for as long as it is read.
   */
  async holdStream<S extends Readable>(key: string, open: () => Promise<S> | S): Promise<S> {
    const release = this.take(key);
    try {
      const stream = await open();
      finished(stream, release);
      return stream;
    } catch (error) {
      release();
      throw error;
    }
  }
}
