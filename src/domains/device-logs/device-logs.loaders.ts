import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { placeholders } from '../../kernel/sql';
import type { DeviceLogRecord } from './device-log.entity';

export interface LogWindow {
  startAtTime: Date;
  endAtTime: Date;
}

/** Driver rows may carry timestamps as text (MikroORM's pg settings) or as dates. */
const asDate = (value: unknown): Date => (value instanceof Date ? value : new Date(value as string));

/** A listed row as a plain snapshot: pages are read, never changed, and managed entities cost more than the query. */
function toDeviceLogRecord(row: Record<string, unknown>): DeviceLogRecord {
  return {
    id: row.id as string,
    userId: row.user_id as string,
    digestMD5: row.digest_md5 as string,
    mediaType: row.media_type as string,
    size: row.size as number,
    objectKey: row.object_key as string,
    startAtTime: asDate(row.start_at_time),
    endAtTime: asDate(row.end_at_time),
    createdTime: asDate(row.created_time),
    revision: row.revision as number,
  } as DeviceLogRecord;
}

/** The window as SQL conditions on `device_logs`: start inclusive, end exclusive, as Tidepool filters. */
const WINDOW_SQL = 'start_at_time >= ? and end_at_time < ?';

/**
 * A page of the device logs of many users inside one window, newest upload first (then by id),
 * one row more than asked: a hundred users cost one SELECT. `after` is the (created time, id) of
 * the last row of the previous page; created times are written from JavaScript dates.
 */
export function logPages(scope: Scope, window: LogWindow, args: PageArgs): Loader<string, DeviceLogRecord[]> {
  return scope.loaders.get(`deviceLogs.pages:${JSON.stringify([window, args])}`, () => {
    return new Loader<string, DeviceLogRecord[]>(async (userIds) => {
      const after = args.after === null ? null : [new Date(args.after[0]), new Date(args.after[0]), args.after[1]];
      const rows = await scope.em.getConnection().execute<Record<string, unknown>[]>(
        `select * from (
           select *, row_number() over (partition by user_id order by created_time desc, id) as position
           from device_logs
           where user_id in (${placeholders(userIds.length)}) and ${WINDOW_SQL}
             ${after ? 'and (created_time < ? or (created_time = ? and id > ?))' : ''}
         ) ranked where position <= ? order by created_time desc, id`,
        [...userIds, window.startAtTime, window.endAtTime, ...(after ?? []), args.first + 1],
      );
      const byUser = new Map<string, DeviceLogRecord[]>(userIds.map((id) => [id, []]));
      for (const row of rows) byUser.get(row.user_id as string)?.push(toDeviceLogRecord(row));
      return userIds.map((id) => byUser.get(id) ?? []);
    });
  });
}

/** How many logs each user has inside one window, in one SELECT for the request. */
export function logCounts(scope: Scope, window: LogWindow): Loader<string, number> {
  return scope.loaders.get(`deviceLogs.counts:${JSON.stringify(window)}`, () => {
    return new Loader<string, number>(async (userIds) => {
      const rows = await scope.em
        .getConnection()
        .execute<{ user_id: string; count: string }[]>(
          `select user_id, count(*) as count from device_logs where user_id in (${placeholders(userIds.length)}) and ${WINDOW_SQL} group by user_id`,
          [...userIds, window.startAtTime, window.endAtTime],
        );
      const counts = new Map(rows.map((row) => [row.user_id, Number(row.count)]));
      return userIds.map((id) => counts.get(id) ?? 0);
    });
  });
}
