import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import type { PageArgs } from '../../kernel/paging';
import { countsByUser, newestPagesByUser, rowDate, type SqlCondition } from '../../kernel/sql';
import { DeviceLogSchema, type DeviceLogRecord } from './device-log.entity';

/**
 * Every read and write of the device-logs domain's table (`device_logs`). The service holds the
 * rules, the loaders batch; this holds the statements.
 */

export interface LogWindow {
  startAtTime: Date;
  endAtTime: Date;
}

/** A listed row as a plain snapshot: pages are read, never changed, and managed entities cost more than the query. */
function toDeviceLogRecord(row: Record<string, unknown>): DeviceLogRecord {
  return {
    id: row.id as string,
    userId: row.user_id as string,
    digestMD5: row.digest_md5 as string,
    mediaType: row.media_type as string,
    size: row.size as number,
    objectKey: row.object_key as string,
    startAtTime: rowDate(row.start_at_time)!,
    endAtTime: rowDate(row.end_at_time)!,
    createdTime: rowDate(row.created_time)!,
    revision: row.revision as number,
  } as DeviceLogRecord;
}

/** The window as SQL conditions on `device_logs`: start inclusive, end exclusive, as Tidepool filters. */
const windowSql = (window: LogWindow): SqlCondition => ({
  sql: 'start_at_time >= ? and end_at_time < ?',
  params: [window.startAtTime, window.endAtTime],
});

/** A page of the logs of each of `userIds` inside one window, newest upload first, in one SELECT. */
export async function logPagesOf(
  em: EntityManager,
  userIds: readonly string[],
  window: LogWindow,
  args: PageArgs,
): Promise<DeviceLogRecord[][]> {
  const pages = await newestPagesByUser(em, 'device_logs', windowSql(window), userIds, args, { stale: true });
  return pages.map((rows) => rows.map(toDeviceLogRecord));
}

/** How many logs each of `userIds` has inside one window, in one SELECT. */
export function logCountsOf(em: EntityManager, userIds: readonly string[], window: LogWindow): Promise<number[]> {
  return countsByUser(em, 'device_logs', windowSql(window), userIds, { stale: true });
}

export function findLog(em: EntityManager, id: string): Promise<DeviceLogRecord | null> {
  return em.findOne(DeviceLogSchema, { id });
}

export async function insertLog(tx: EntityManager, log: DeviceLogRecord): Promise<void> {
  await tx.insert(DeviceLogSchema, log);
}

/** Deletes the records of `userId`'s logs in one statement, returning their object keys. */
export async function removeLogsOf(tx: EntityManager, userId: string): Promise<string[]> {
  const rows = await sqlOf(tx).rows<{ object_key: string }>(
    'delete from device_logs where user_id = ? returning object_key',
    [userId],
  );
  return rows.map((row) => row.object_key);
}
