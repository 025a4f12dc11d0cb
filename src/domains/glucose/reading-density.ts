import type { EntityManager } from '@mikro-orm/postgresql';
import { invalid } from '../../kernel/errors';
import { hourOf } from './summary/buckets';
import { firstDenseHour } from './readings.repository';

/**
 * Refuses (INVALID) an upload that leaves one of its hours of data (UTC) holding more than
 * `bound` of the account's readings. What counts is what a summary rebuild reads or will: active
 * readings, and those of open datasets, which become active when their dataset closes; readings
 * a later upload of the same device deactivated do not, so re-uploading a device's history stays
 * possible. Runs in the upload's transaction after its insert, so a record the deduplicator
 * dropped or replaced is not counted twice. The caller holds the account's lock
 * (`lockReadingsOf`, taken once for the copies and this check), so that two uploads at once
 * cannot both pass, and JIT off with it.
 */
export async function assertReadingDensityUnderLock(
  tx: EntityManager,
  userId: string,
  times: readonly Date[],
  bound: number,
): Promise<void> {
  const hours = [...new Set(times.map((time) => hourOf(time.getTime())))].map((hour) => new Date(hour));
  if (!hours.length) return;
  const dense = await firstDenseHour(tx, userId, hours, bound);
  if (dense)
    throw invalid(
      `At most ${bound} glucose readings are kept per account and hour of data; with this upload the hour from ` +
        `${new Date(dense.hour).toISOString()} would hold ${dense.readings}. Send each reading once.`,
      'time',
    );
}
