import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import { hexIds } from '../../kernel/ids';
import type { PageArgs } from '../../kernel/paging';
import { arrayLiteral, countsByUser, placeholders, rowDate, type SqlCondition } from '../../kernel/sql';
import type { DatasetRecord } from './dataset.entity';
import type { GlucoseRecord } from './glucose-record';

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
 * The per-record columns of an insert and the types their arrays are bound as. `fields` goes as
 * text and is cast row by row: PostgreSQL reads a `jsonb[]` literal several times slower than
 * the same texts cast one by one (measured: 4 to 8 ms against 1.3 to 2 ms for 1,000 records).
 */
const RECORD_COLUMNS = [
  ['time', 'timestamptz'],
  ['id', 'varchar'],
  ['type', 'varchar'],
  ['value', 'float8'],
  ['minutes', 'int2'],
  ['dedup_key', 'varchar'],
  ['device_id', 'text'],
  ['fields', 'text'],
] as const;

/**
 * Stores an upload's records in one statement. Under a hash deduplicator a record already in
 * the dataset is dropped; under the origin deduplicator it replaces the earlier one. Returns
 * how many rows were written.
 */
export async function insertReadings(
  tx: EntityManager,
  dataset: DatasetRecord,
  records: readonly { record: GlucoseRecord; key: string | null }[],
  { active, replace }: { active: boolean; replace: boolean },
): Promise<number> {
  if (!records.length) return 0;
  const ids = hexIds(records.length, 32);
  const literals = [
    plainLiteral(records.map(({ record }) => record.time.toISOString())),
    plainLiteral(records.map(({ record }, index) => (record.fields.id as string | undefined) ?? ids[index]!)),
    plainLiteral(records.map(({ record }) => record.type)),
    plainLiteral(records.map(({ record }) => record.value)),
    plainLiteral(records.map(({ record }) => record.minutes)),
    arrayLiteral(records.map(({ key }) => key)),
    arrayLiteral(records.map(({ record }) => record.deviceId)),
    arrayLiteral(records.map(({ record }) => JSON.stringify(storedFields(record.fields)))),
  ];
  const onConflict = replace
    ? `do update set time = excluded.time, id = excluded.id, type = excluded.type, value = excluded.value,
         minutes = excluded.minutes, device_id = excluded.device_id, fields = excluded.fields, created_time = excluded.created_time`
    : 'do nothing';
  // What all the rows share is bound once; the rest is one array per column, unnested into rows:
  // a dozen parameters instead of twelve thousand, bound by the driver rather than inlined into
  // the statement (the runner's `bound`).
  const { affectedRows } = await sqlOf(tx).bound(
    `insert into glucose_readings (user_id, dataset_id, active, created_time, ${RECORD_COLUMNS.map(([name]) => name).join(', ')})
     select $1::varchar, $2::varchar, $3::bool, $4::timestamptz, time, id, type, value, minutes, dedup_key, device_id, fields::jsonb
       from unnest(${RECORD_COLUMNS.map(([, type], index) => `$${index + 5}::${type}[]`).join(', ')})
         as r(${RECORD_COLUMNS.map(([name]) => name).join(', ')})
     on conflict (user_id, dataset_id, dedup_key) ${onConflict}`,
    [dataset.userId, dataset.id, active, new Date().toISOString(), ...literals],
  );
  return affectedRows;
}

/**
 * An array literal of elements that need no quotes: ISO 8601 times, finite numbers, record ids
 * (32 lowercase letters or digits) and record types. Joined as they are, without the per-element
 * checks of `arrayLiteral`, which cost a thousand records' upload a millisecond and its garbage.
 */
const plainLiteral = (values: readonly (string | number)[]) => `{${values.join(',')}}`;

/** The record's fields kept as sent: its id and device have columns of their own. */
const storedFields = ({ id: _id, deviceId: _deviceId, ...fields }: Record<string, unknown>) => fields;

/** A closing dataset's readings start to count. */
export async function activateDatasetReadings(tx: EntityManager, userId: string, datasetId: string): Promise<void> {
  await sqlOf(tx).run('update glucose_readings set active = true where user_id = ? and dataset_id = ?', [
    userId,
    datasetId,
  ]);
}

/** The user's active readings of other datasets with the same deduplication key as one of this dataset's stop counting. */
export async function deactivateEarlierCopies(tx: EntityManager, userId: string, datasetId: string): Promise<void> {
  await sqlOf(tx).run(
    `update glucose_readings older set active = false
      where older.user_id = ? and older.dataset_id <> ? and older.active
        and older.dedup_key in (select dedup_key from glucose_readings where user_id = ? and dataset_id = ?)`,
    [userId, datasetId, userId, datasetId],
  );
}

export async function deleteDatasetReadings(tx: EntityManager, userId: string, datasetId: string): Promise<void> {
  await sqlOf(tx).run('delete from glucose_readings where user_id = ? and dataset_id = ?', [userId, datasetId]);
}

/** Every reading of the user (the account's deletion). */
export async function deleteReadingsOf(em: EntityManager, userId: string): Promise<void> {
  await sqlOf(em).run('delete from glucose_readings where user_id = ?', [userId]);
}

/** The earliest reading of each record type in a dataset. */
export async function earliestOfDataset(
  tx: EntityManager,
  userId: string,
  datasetId: string,
): Promise<{ type: string; earliest: Date }[]> {
  const rows = await sqlOf(tx).rows<{ type: string; earliest: unknown }>(
    'select type, min(time) as earliest from glucose_readings where user_id = ? and dataset_id = ? group by type',
    [userId, datasetId],
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
 * count or will: active ones, and those of open datasets; undefined when none does.
 */
export async function firstDenseHour(
  tx: EntityManager,
  userId: string,
  hours: readonly Date[],
  bound: number,
): Promise<{ hour: Date; readings: number } | undefined> {
  const [dense] = await sqlOf(tx).rows<{ hour: Date; readings: number }>(
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
      where user_id = ? and type = ? and active and time >= ? and time <= ?`,
    [userId, type, from, to],
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
      where user_id = ? and type = ? and time >= ? and time <= ?`,
    [userId, type, from, to],
  );
  return rowDate(upload?.last_upload);
}

const BATCH = 1000;

/**
 * A user's active readings in (time, id) order, read 1,000 at a time by keyset, on `em` (inside
 * its transaction when it has one).
 */
export async function* readingBatches(
  em: EntityManager,
  userId: string,
  filter: ReadingFilter,
): AsyncGenerator<StoredReading[]> {
  const condition = readingCondition(filter);
  let after: [Date, string] | null = null;
  for (;;) {
    const rows: Record<string, unknown>[] = await sqlOf(em).rows(
      `select * from glucose_readings where user_id = ? and ${condition.sql}
        ${after ? 'and (time, id) > (?, ?)' : ''} order by time, id limit ${BATCH}`,
      [userId, ...condition.params, ...(after ?? [])],
    );
    const batch = rows.map(toReading);
    if (batch.length) yield batch;
    if (batch.length < BATCH) return;
    const last = batch.at(-1)!;
    after = [last.time, last.id];
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
  const condition = readingCondition(filter);
  const afterParams = args.after === null ? [] : [new Date(args.after[0]), args.after[1]];
  const rows = await sqlOf(em).rows(
    `select * from (
       select *, row_number() over (partition by user_id order by time, id) as position
       from glucose_readings
       where user_id in (${placeholders(userIds.length)}) and ${condition.sql}
         ${args.after ? 'and (time, id) > (?, ?)' : ''}
     ) ranked where position <= ? order by time, id`,
    [...userIds, ...condition.params, ...afterParams, args.first + 1],
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
  return countsByUser(em, 'glucose_readings', readingCondition(filter), userIds);
}

/** Active readings of the filter's types, inside its range where it has bounds. */
function readingCondition(filter: ReadingFilter): SqlCondition {
  const bounds = [filter.from && 'time >= ?', filter.to && 'time <= ?'].filter(Boolean);
  return {
    sql: ['active', `type in (${placeholders(filter.types.length)})`, ...bounds].join(' and '),
    params: [...filter.types, ...[filter.from, filter.to].filter((bound) => bound !== null)],
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
