import type { Readable } from 'node:stream';
import { InFlightLimit } from './in-flight-limit';
import type { Principal } from './principal';

/**
 * Heavy downloads (a patient's whole history, a clinic's whole patient list) one caller may have
 * streaming at once on this instance. Each reads the database batch after batch for as long as
 * its client reads, so a caller opening many at once could hold the pool and the CPU: one more
 * is refused (RATE_LIMITED). The place is held until the download's stream ends or is closed.
 */
export class ExportsInFlight extends InFlightLimit {
  constructor(limit: number) {
    super(limit, {
      message: (most) =>
        `You have ${most} exports in progress, the most one caller may have at once: retry when one has ended`,
      // About what a year of readings takes to stream.
      retryAfterSeconds: 5,
    });
  }

  /** Opens `principal`'s download in one of its places, held until the stream ends, fails or is closed. */
  open<S extends Readable>(principal: Principal, open: () => Promise<S> | S): Promise<S> {
    return this.holdStream(callerKey(principal), open);
  }
}

/** One caller: an account, else the client (a server or service account) acting without one. */
const callerKey = (principal: Principal): string =>
  principal.userId === null ? `client:${principal.clientId ?? 'server'}` : `user:${principal.userId}`;
