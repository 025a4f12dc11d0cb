import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../infra/database/orm';
import { hexIds } from '../../kernel/ids';
import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import type { PageArgs } from '../../kernel/paging';
import {
  arrayLiteral,
  countsByUser,
  newestPagesByUser,
  placeholders,
  rowDate,
  type SqlCondition,
} from '../../kernel/sql';
import { DatasetSchema, type DatasetRecord } from './dataset.entity';
import type { GlucoseRecord } from './glucose-record';
import type { SummaryPeriods } from './summary/periods';

/** Datasets by id, one query for the request. */
export function datasetLoader(scope: Scope): Loader<string, DatasetRecord | null> {
  return scope.loaders.get('glucose.datasets', () => {
    return new Loader<string, DatasetRecord | null>(async (ids) => {
      const rows = await scope.em.find(DatasetSchema, { id: { $in: [...ids] } }, { disableIdentityMap: true });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? null);
    });
  });
}

/** The columns of an insert and their types. */
const COLUMNS = [
  ['user_id', 'varchar'],
  ['time', 'timestamptz'],
  ['id', 'varchar'],
  ['dataset_id', 'varchar'],
  ['type', 'varchar'],
  ['value', 'float8'],
  ['minutes', 'int2'],
  ['active', 'bool'],
  ['dedup_key', 'varchar'],
  ['device_id', 'text'],
  ['fields', 'jsonb'],
  ['created_time', 'timestamptz'],
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
  const now = new Date();
  const column = <T>(value: (entry: (typeof records)[number]) => T) => records.map(value);
  const ids = hexIds(records.length, 32);
  const arrays = [
    column(() => dataset.userId),
    column(({ record }) => record.time),
    records.map(({ record }, index) => (record.fields.id as string | undefined) ?? ids[index]!),
    column(() => dataset.id),
    column(({ record }) => record.type),
    column(({ record }) => record.value),
    column(({ record }) => record.minutes),
    column(() => active),
    column(({ key }) => key),
    column(({ record }) => record.deviceId),
    column(({ record }) => JSON.stringify(storedFields(record.fields))),
    column(() => now),
  ];
  const onConflict = replace
    ? `do update set time = excluded.time, id = excluded.id, type = excluded.type, value = excluded.value,
         minutes = excluded.minutes, device_id = excluded.device_id, fields = excluded.fields, created_time = excluded.created_time`
    : 'do nothing';
  // One array per column, unnested into rows: a dozen parameters instead of twelve thousand,
  // bound by the driver rather than inlined into the statement (executeBound).
  const { affectedRows } = await executeBound(
    tx,
    `insert into glucose_readings (${COLUMNS.map(([name]) => name).join(', ')})
     select * from unnest(${COLUMNS.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')})
     on conflict (user_id, dataset_id, dedup_key) ${onConflict}`,
    arrays.map((values) => arrayLiteral(values)),
  );
  return affectedRows;
}

/** The record's fields kept as sent: its id and device have columns of their own. */
const storedFields = ({ id: _id, deviceId: _deviceId, ...fields }: Record<string, unknown>) => fields;

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
    const rows: Record<string, unknown>[] = await em.execute(
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

const toDataset = (row: Record<string, unknown>): DatasetRecord => ({
  id: row.id as string,
  userId: row.user_id as string,
  dataSetType: row.data_set_type as string,
  state: row.state as string,
  deduplicator: row.deduplicator as string,
  deviceId: (row.device_id as string | null) ?? null,
  details: row.details as Record<string, unknown>,
  createdUserId: (row.created_user_id as string | null) ?? null,
  createdTime: rowDate(row.created_time)!,
  modifiedTime: rowDate(row.modified_time),
});

/** A page of the datasets of many users, newest first: one SELECT for the request. */
export function datasetPages(scope: Scope, args: PageArgs): Loader<string, DatasetRecord[]> {
  return scope.loaders.get(`glucose.datasetPages:${JSON.stringify(args)}`, () => {
    return new Loader<string, DatasetRecord[]>(async (userIds) => {
      const pages = await newestPagesByUser(scope.em, 'datasets', ALL, userIds, args);
      return pages.map((rows) => rows.map(toDataset));
    });
  });
}

/** How many datasets each user has, in one SELECT for the request. */
export function datasetCounts(scope: Scope): Loader<string, number> {
  return scope.loaders.get('glucose.datasetCounts', () => {
    return new Loader<string, number>((userIds) => countsByUser(scope.em, 'datasets', ALL, userIds));
  });
}

const ALL: SqlCondition = { sql: 'true', params: [] };

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

/**
 * A page of the active readings of many users in one time range, oldest first (then by id):
 * one SELECT for the request. `after` is the (time, id) of the previous page's last reading.
 */
export function readingPages(scope: Scope, filter: ReadingFilter, args: PageArgs): Loader<string, StoredReading[]> {
  return scope.loaders.get(`glucose.readingPages:${JSON.stringify([filter, args])}`, () => {
    return new Loader<string, StoredReading[]>(async (userIds) => {
      const condition = readingCondition(filter);
      const afterParams = args.after === null ? [] : [new Date(args.after[0]), args.after[1]];
      const rows = await scope.em.getConnection().execute<Record<string, unknown>[]>(
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
    });
  });
}

/** How many active readings each user has in one time range, in one SELECT for the request. */
export function readingCounts(scope: Scope, filter: ReadingFilter): Loader<string, number> {
  return scope.loaders.get(`glucose.readingCounts:${JSON.stringify(filter)}`, () => {
    return new Loader<string, number>((userIds) =>
      countsByUser(scope.em, 'glucose_readings', readingCondition(filter), userIds),
    );
  });
}

type StoredPeriods = SummaryPeriods['periods'];

/** A stored summary row: its dates and current periods (the previous ones: previousPeriodsLoader). */
export interface StoredSummary {
  kind: 'cgm' | 'bgm';
  lastData: Date | null;
  firstData: Date | null;
  lastUploadDate: Date | null;
  lastUpdatedDate: Date | null;
  outdatedSince: Date | null;
  periods: StoredPeriods | null;
}

/**
 * The CGM and BGM summaries of many users, in one SELECT for the request: the current periods
 * only, half of a stored summary, since most views (a page of patients) show no other.
 */
export function summaryLoader(scope: Scope): Loader<string, StoredSummary[]> {
  return scope.loaders.get('glucose.summaries', () => {
    return new Loader<string, StoredSummary[]>(async (userIds) => {
      const rows = await scope.em.execute<Record<string, unknown>[]>(
        `select user_id, kind, last_data, first_data, last_upload_date, last_updated_date, outdated_since,
                periods->'periods' as periods
           from glucose_summaries where user_id in (${placeholders(userIds.length)})`,
        [...userIds],
      );
      const byUser = new Map<string, StoredSummary[]>(userIds.map((id) => [id, []]));
      for (const row of rows)
        byUser.get(row.user_id as string)?.push({
          kind: row.kind as 'cgm' | 'bgm',
          lastData: rowDate(row.last_data),
          firstData: rowDate(row.first_data),
          lastUploadDate: rowDate(row.last_upload_date),
          lastUpdatedDate: rowDate(row.last_updated_date),
          outdatedSince: rowDate(row.outdated_since),
          periods: row.periods as StoredPeriods | null,
        });
      return userIds.map((id) => byUser.get(id) ?? []);
    });
  });
}

/** Each user's previous periods by kind, read in one SELECT for the request when a view asks for them. */
export function previousPeriodsLoader(scope: Scope): Loader<string, Partial<Record<'cgm' | 'bgm', StoredPeriods>>> {
  return scope.loaders.get('glucose.previousPeriods', () => {
    return new Loader<string, Partial<Record<'cgm' | 'bgm', StoredPeriods>>>(async (userIds) => {
      const rows = await scope.em.execute<{ user_id: string; kind: 'cgm' | 'bgm'; previous: StoredPeriods | null }[]>(
        `select user_id, kind, periods->'offsetPeriods' as previous
           from glucose_summaries where user_id in (${placeholders(userIds.length)})`,
        [...userIds],
      );
      const byUser = new Map<string, Partial<Record<'cgm' | 'bgm', StoredPeriods>>>(userIds.map((id) => [id, {}]));
      for (const row of rows) if (row.previous) byUser.get(row.user_id)![row.kind] = row.previous;
      return userIds.map((id) => byUser.get(id)!);
    });
  });
}
