import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { countsByUser, newestPagesByUser, rowDate, type SqlCondition } from '../../kernel/sql';
import type { DeviceLogRecord } from './device-log.entity';

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

/** A page of the device logs of many users inside one window, newest upload first: one SELECT for the request. */
export function logPages(scope: Scope, window: LogWindow, args: PageArgs): Loader<string, DeviceLogRecord[]> {
  return scope.loaders.get(`deviceLogs.pages:${JSON.stringify([window, args])}`, () => {
    return new Loader<string, DeviceLogRecord[]>(async (userIds) => {
      const pages = await newestPagesByUser(scope.em.getConnection(), 'device_logs', windowSql(window), userIds, args);
      return pages.map((rows) => rows.map(toDeviceLogRecord));
    });
  });
}

/** How many logs each user has inside one window, in one SELECT for the request. */
export function logCounts(scope: Scope, window: LogWindow): Loader<string, number> {
  return scope.loaders.get(`deviceLogs.counts:${JSON.stringify(window)}`, () => {
    return new Loader<string, number>((userIds) =>
      countsByUser(scope.em.getConnection(), 'device_logs', windowSql(window), userIds),
    );
  });
}
