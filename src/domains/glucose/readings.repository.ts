import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import type { PageArgs } from '../../kernel/paging';
import { arrayLiteral, countsByUser, placeholders, rowDate, type SqlCondition } from '../../kernel/sql';
import { DEVICE_TIME_KEY, ORIGIN_KEY, readingUuid, TEXT_ID_KEY } from './reading-shape';

/**
 * Every statement on the readings (`glucose_readings`): uploads' inserts, their activation and
 * removal with their dataset, the reads of the API and of summary rebuilds. The services hold
 * the rules; this holds the statements.
 */

export interface ReadingFilter {
  types: readonly ('cbg' | 'smbg')[];
  /** Inclusive. */
  from: Date | null;
  /** Inclusive, as Tidepool's read API. */
  to: Date | null;
}

/** A stored reading as the read API answers it. */
export interface StoredReading {
  id: string;
  type: string;
  time: Date;
  value: number;
  /** Minutes the reading stands for in summaries. */
  minutes: number;
  datasetId: string;
  deviceId: string | null;
  fields: Record<string, unknown>;
  createdTime: Date;
}

/**
 * A reading with its shape, as it was stored before readings were split (the columns the read
 * API, exports and AGP read): its id (a sent id that is not hex is kept among its own fields),
 * and its fields, the shape's and its own merged back into one jsonb, whose keys PostgreSQL
 * orders the same however they were split, with its device time written back from its time
 * where the shape keeps the offset (`DEVICE_TIME_KEY`). `key` is the stored id the (time, id) order uses.
 * The readings are `r`, their shapes `s`.
 */
export const READING_COLUMNS = `coalesce(r.extra->>'${TEXT_ID_KEY}', replace(r.id::text, '-', '')) as id, s.type, r.time,
  r.value, s.minutes, s.dataset_id, s.device_id, r.created_time, r.id as key,
  (s.fields - '${DEVICE_TIME_KEY}') || coalesce(r.extra - '{${TEXT_ID_KEY},${ORIGIN_KEY}}'::text[], '{}')
  || case when s.fields->'${DEVICE_TIME_KEY}' is null then '{}'
          else jsonb_build_object('deviceTime', to_char((date_trunc('second', r.time, 'UTC')
                 + (s.fields->>'${DEVICE_TIME_KEY}')::int * interval '1 second') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'))
     end as fields`;
export const READINGS_WITH_SHAPES = 'glucose_readings r join glucose_reading_shapes s on s.id = r.shape';

/**
 * The key of the readings' index (Migration20261127193000_glucose_readings_user_time_key): a hash
 * of the user id, then the time. A user's readings are found on it by their hash, and the user id
 * itself picks the partition and rules out another user of the same hash.
 */
const USER_KEY = (column: string) => `hashtextextended(${column}, 0)`;

/** Readings (`column`, their user id) of the user bound as `param` (a `$n`, as it may be repeated). */
export const OF_USER_AT = (param: string, column = 'user_id') =>
  `${column} = ${param} and ${USER_KEY(column)} = ${USER_KEY(`${param}::varchar`)}`;

/** Readings (`column`, their user id) of one of `count` users; its parameters are `ofUsers(ids)`. */
export const OF_USERS = (count: number, column = 'user_id') =>
  `${column} in (${placeholders(count)}) and ${USER_KEY(column)} in (${Array.from({ length: count }, () => USER_KEY('?::varchar')).join(', ')})`;
export const ofUsers = (userIds: readonly string[]) => [...userIds, ...userIds];

/**
 * The readings' shapes of some users and types, as a condition on a reading's `shape`: the
 * users' shapes are few, and a reading's index range is then read without a join.
 */
export const SHAPE_OF_TYPES = (users: string, types = '?') =>
  `shape = any(array(select id from glucose_reading_shapes where user_id in (${users}) and type in (${types})))`;

/**
 * The keyset position after a reading of `id`: the stored id of a read API cursor's or of the
 * last reading read (hex, or the digest of a sent id that is not).
 */
export const keysetAfter = (time: Date, id: string): [Date, string] => [time, readingUuid(id)];

/**
 * The rows of one dataset's readings: its shapes, within the time its shapes span, so the
 * readings' (user, time) index range finds them. `r` is the readings' alias; the parameters are the
 * user and the dataset.
 */
const OF_DATASET = `${OF_USERS(1, 'r.user_id')}
  and r.time >= (select min(first_time) from glucose_reading_shapes where dataset_id = ?)
  and r.time <= (select max(last_time) from glucose_reading_shapes where dataset_id = ?)
  and r.shape = any(array(select id from glucose_reading_shapes where dataset_id = ?))`;
const ofDataset = (userId: string, datasetId: string) => [...ofUsers([userId]), datasetId, datasetId, datasetId];

/** A closing dataset's readings start to count. */
export async function activateDatasetReadings(tx: EntityManager, userId: string, datasetId: string): Promise<void> {
  await sqlOf(tx).run(`update glucose_readings r set active = true where ${OF_DATASET}`, ofDataset(userId, datasetId));
}

/**
 * The user's active readings of other datasets that have the same deduplication key as one of
 * this (device deduplicator) dataset's stop counting: the same instant, type and value from the
 * same device (the record's, else its dataset's). An earlier reading's key is its own dataset's:
 * the device's under the device deduplicator, the dataset id under the dataset one.
 */
export async function deactivateEarlierCopies(tx: EntityManager, userId: string, datasetId: string): Promise<void> {
  await sqlOf(tx).run(
    `update glucose_readings older set active = false
       from glucose_readings r
       join glucose_reading_shapes ms on ms.id = r.shape
       join datasets md on md.id = ms.dataset_id,
            glucose_reading_shapes os join datasets od on od.id = os.dataset_id
      where ${OF_DATASET}
        and ${OF_USERS(1, 'older.user_id')} and older.time = r.time and older.value = r.value and older.active
        and os.id = older.shape and os.dataset_id <> ? and os.type = ms.type
        and case od.deduplicator
              when 'org.tidepool.deduplicator.device.deactivate.hash' then coalesce(os.device_id, od.device_id, '')
              when 'org.tidepool.deduplicator.dataset.drop.hash' then od.id
            end = coalesce(ms.device_id, md.device_id, '')`,
    [...ofDataset(userId, datasetId), ...ofUsers([userId]), datasetId],
  );
}

export async function deleteDatasetReadings(tx: EntityManager, userId: string, datasetId: string): Promise<void> {
  await sqlOf(tx).run(`delete from glucose_readings r where ${OF_DATASET}`, ofDataset(userId, datasetId));
  await sqlOf(tx).run('delete from glucose_reading_shapes where dataset_id = ?', [datasetId]);
}

/** Every reading of the user (the account's deletion). */
export async function deleteReadingsOf(em: EntityManager, userId: string): Promise<void> {
  await sqlOf(em).run(`delete from glucose_readings where ${OF_USERS(1)}`, ofUsers([userId]));
  await sqlOf(em).run('delete from glucose_reading_shapes where user_id = ?', [userId]);
}

/** The earliest reading of each record type in a dataset. */
export async function earliestOfDataset(
  tx: EntityManager,
  userId: string,
  datasetId: string,
): Promise<{ type: string; earliest: Date }[]> {
  const rows = await sqlOf(tx).rows<{ type: string; earliest: unknown }>(
    `select s.type, min(r.time) as earliest
       from glucose_readings r join glucose_reading_shapes s on s.id = r.shape
      where ${OF_DATASET} group by s.type`,
    ofDataset(userId, datasetId),
  );
  return rows.map((row) => ({ type: row.type, earliest: rowDate(row.earliest)! }));
}

/**
 * Holds the user's lock on adding readings until `tx` ends: two uploads at once take turns. The
 * same statement turns JIT compilation off for the rest of `tx`: the density check's hours are
 * bound at run time, so PostgreSQL estimates thousands of readings per hour on a large table and
 * compiled its plan for 20 to 900 ms (measured), under this lock, to count a few hundred rows.
 */
export async function lockReadingsOf(tx: EntityManager, userId: string): Promise<void> {
  await sqlOf(tx).rows(`select pg_advisory_xact_lock(hashtextextended(?, 0)), set_config('jit', 'off', true)`, [
    `glucose-readings:${userId}`,
  ]);
}

/**
 * The first of `hours` (UTC hour starts) in which the user holds more than `bound` readings that
 * count or will: active ones, and those of open datasets; undefined when none does. The shapes
 * of the user's open datasets are listed once (a lookup of shape and dataset for each inactive
 * reading counted was most of the check for an upload to a normal dataset).
 */
export async function firstDenseHour(
  tx: EntityManager,
  userId: string,
  hours: readonly Date[],
  bound: number,
): Promise<{ hour: Date; readings: number } | undefined> {
  const [dense] = await sqlOf(tx).rows<{ hour: Date; readings: number }>(
    `with open as materialized (
       select array(select s.id from glucose_reading_shapes s join datasets d on d.id = s.dataset_id
                     where s.user_id = ? and d.state = 'open') as shapes)
     select h.hour, c.readings
       from open o, unnest(?::timestamptz[]) as h(hour)
       cross join lateral (
         select count(*)::int as readings from glucose_readings r
          where ${OF_USERS(1, 'r.user_id')} and r.time >= h.hour and r.time < h.hour + interval '1 hour'
            and (r.active or r.shape = any(o.shapes))
       ) c
      where c.readings > ?
      order by h.hour limit 1`,
    [userId, arrayLiteral(hours), ...ofUsers([userId]), bound],
  );
  return dense;
}

/** The time of the user's newest active reading of `type` between `from` and `to` (inclusive). */
export async function newestReadingTime(
  tx: EntityManager,
  userId: string,
  type: string,
  from: Date,
  to: Date,
): Promise<Date | null> {
  const [newest] = await sqlOf(tx).rows<{ last_data: unknown }>(
    `select max(time) as last_data from glucose_readings
      where ${OF_USERS(1)} and ${SHAPE_OF_TYPES('?')} and active and time >= ? and time <= ?`,
    [...ofUsers([userId]), userId, type, from, to],
  );
  return rowDate(newest?.last_data);
}

/** When the newest of the user's readings of `type` between `from` and `to` (inclusive, active or not) was stored. */
export async function newestUploadTime(
  tx: EntityManager,
  userId: string,
  type: string,
  from: Date,
  to: Date,
): Promise<Date | null> {
  const [upload] = await sqlOf(tx).rows<{ last_upload: unknown }>(
    `select max(created_time) as last_upload from glucose_readings
      where ${OF_USERS(1)} and ${SHAPE_OF_TYPES('?')} and time >= ? and time <= ?`,
    [...ofUsers([userId]), userId, type, from, to],
  );
  return rowDate(upload?.last_upload);
}

const BATCH = 1000;

/**
 * Where the next batch of a user's readings under `condition` (on the readings' own columns,
 * unqualified; the user's and its parameters first) ends, after the time bound as the last
 * parameter when `after`: at the time of the 1,000th, read in the index's order. A batch holds
 * every reading up to that time, those of the same time included, so that the next one starts
 * after it. Ordering by (time, id) with a limit instead, which the index does not give, let
 * PostgreSQL sort every reading of the user for each batch when it expected few (a bulk of
 * readings not yet analysed): 200 batches read 200,000 readings each.
 */
export const batchEnd = (condition: string, after: boolean) =>
  `(select max(time) from (select time from glucose_readings where ${OF_USERS(1)} and ${condition}
     ${after ? 'and time > ?' : ''} order by time limit ${BATCH}) head)`;

/**
 * A user's active readings in (time, id) order, read about 1,000 at a time by keyset on the time
 * (`batchEnd`), on `em` (inside its transaction when it has one).
 */
export async function* readingBatches(
  em: EntityManager,
  userId: string,
  filter: ReadingFilter,
): AsyncGenerator<StoredReading[]> {
  const condition = readingCondition([userId], filter);
  let after: Date | null = null;
  for (;;) {
    const since = after ? [after] : [];
    const rows: Record<string, unknown>[] = await sqlOf(em).rows(
      `select ${READING_COLUMNS} from ${READINGS_WITH_SHAPES}
        where ${OF_USERS(1, 'r.user_id')} and ${condition.sql} ${after ? 'and r.time > ?' : ''}
          and r.time <= ${batchEnd(condition.sql, after !== null)}
        order by r.time, r.id`,
      [...ofUsers([userId]), ...condition.params, ...since, ...ofUsers([userId]), ...condition.params, ...since],
    );
    const batch = rows.map(toReading);
    if (batch.length) yield batch;
    if (batch.length < BATCH) return;
    after = rowDate(rows.at(-1)!.time)!;
  }
}

/**
 * A page of the active readings of many users in one time range, oldest first (then by id), one
 * reading more than asked, in one SELECT. `after` is the (time, id) of the previous page's last
 * reading.
 */
export async function readingPagesOf(
  em: EntityManager,
  userIds: readonly string[],
  filter: ReadingFilter,
  args: PageArgs,
): Promise<StoredReading[][]> {
  const condition = readingCondition(userIds, filter);
  const afterParams = args.after === null ? [] : keysetAfter(new Date(args.after[0]), String(args.after[1]));
  const rows = await sqlOf(em).rows(
    `select * from (
       select r.user_id, ${READING_COLUMNS}, row_number() over (partition by r.user_id order by r.time, r.id) as position
       from ${READINGS_WITH_SHAPES}
       where ${OF_USERS(userIds.length, 'r.user_id')} and ${condition.sql}
         ${args.after ? 'and (r.time, r.id) > (?, ?::uuid)' : ''}
     ) ranked where position <= ? order by time, key`,
    [...ofUsers(userIds), ...condition.params, ...afterParams, args.first + 1],
  );
  const byUser = new Map<string, StoredReading[]>(userIds.map((id) => [id, []]));
  for (const row of rows) byUser.get(row.user_id as string)?.push(toReading(row));
  return userIds.map((id) => byUser.get(id) ?? []);
}

/** How many active readings each user has in one time range, in one SELECT. */
export function readingCountsOf(
  em: EntityManager,
  userIds: readonly string[],
  filter: ReadingFilter,
): Promise<number[]> {
  const { sql, params } = readingCondition(userIds, filter);
  const onIndex = { sql: `${OF_USERS(userIds.length)} and ${sql}`, params: [...ofUsers(userIds), ...params] };
  return countsByUser(em, 'glucose_readings', onIndex, userIds);
}

/**
 * Active readings of the filter's types (by the users' shapes of those types), inside its range
 * where it has bounds. Its columns are the readings' own.
 */
function readingCondition(userIds: readonly string[], filter: ReadingFilter): SqlCondition {
  const bounds = [filter.from && 'time >= ?', filter.to && 'time <= ?'].filter(Boolean);
  return {
    sql: ['active', SHAPE_OF_TYPES(placeholders(userIds.length), placeholders(filter.types.length)), ...bounds].join(
      ' and ',
    ),
    params: [...userIds, ...filter.types, ...[filter.from, filter.to].filter((bound) => bound !== null)],
  };
}

const toReading = (row: Record<string, unknown>): StoredReading => ({
  id: row.id as string,
  type: row.type as string,
  time: rowDate(row.time)!,
  value: Number(row.value),
  minutes: Number(row.minutes),
  datasetId: row.dataset_id as string,
  deviceId: (row.device_id as string | null) ?? null,
  fields: row.fields as Record<string, unknown>,
  createdTime: rowDate(row.created_time)!,
});
