import { InFlightLimit } from './in-flight-limit';

/**
 * Uploads into one account that may be in flight at once on this instance. Each holds a stream
 * into the object store, a descriptor and an announcement (pending_objects) until it ends: the
 * object quotas bound what an account keeps, this bounds what it can have open meanwhile.
 * `hold(userId, upload)` runs an upload in one of the account's places.
 */
export class UploadsInFlight extends InFlightLimit {
  constructor(limit: number) {
    super(limit, {
      message: (most) =>
        `The account has ${most} uploads in progress, the most it may have at once: retry when one has ended`,
      // About what a small upload takes.
      retryAfterSeconds: 5,
    });
  }
}
