import type { EntityManager } from '@mikro-orm/postgresql';
import { invalid } from '../../kernel/errors';
import { arrayLiteral } from '../../kernel/sql';
import { hourOf } from './summary/buckets';

/**
 * Refuses (INVALID) an upload that leaves one of its hours of data (UTC) holding more than
 * `bound` of the account's readings. What counts is what a summary rebuild reads or will: active
 * readings, and those of open datasets, which become active when their dataset closes; readings
 * a later upload of the same device deactivated do not, so re-uploading a device's history stays
 * possible. Runs in the upload's transaction after its insert, so a record the deduplicator
 * dropped or replaced is not counted twice, under a lock per account so that two uploads at
 * once cannot both pass.
 */
export async function assertReadingDensity(
  tx: EntityManager,
  userId: string,
  times: readonly Date[],
  bound: number,
): Promise<void> {
  const hours = [...new Set(times.map((time) => hourOf(time.getTime())))].map((hour) => new Date(hour));
  if (!hours.length) return;
  await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`glucose-readings:${userId}`]);
  const [dense] = await tx.execute<{ hour: Date; readings: number }[]>(
    `select h.hour, c.readings
       from unnest(?::timestamptz[]) as h(hour)
       cross join lateral (
         select count(*)::int as readings from glucose_readings r
          where r.user_id = ? and r.time >= h.hour and r.time < h.hour + interval '1 hour'
            and (r.active or exists (select 1 from datasets d where d.id = r.dataset_id and d.state = 'open'))
       ) c
      where c.readings > ?
      order by h.hour limit 1`,
    [arrayLiteral(hours), userId, bound],
  );
  if (dense)
    throw invalid(
      `At most ${bound} glucose readings are kept per account and hour of data; with this upload the hour from ` +
        `${new Date(dense.hour).toISOString()} would hold ${dense.readings}. Send each reading once.`,
      'time',
    );
}
