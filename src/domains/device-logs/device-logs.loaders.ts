import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { placeholders } from '../../kernel/sql';
import { DeviceLogSchema, type DeviceLogRecord } from './device-log.entity';

export interface LogWindow {
  startAtTime: Date;
  endAtTime: Date;
  page: number;
  size: number;
}

/**
 * The device logs of many users inside one window (start inclusive, end exclusive, as Tidepool
 * filters), newest upload first, paged per user: a hundred users cost one SELECT.
 */
export function logsOfUsers(scope: Scope, window: LogWindow): Loader<string, DeviceLogRecord[]> {
  return scope.loaders.get(`deviceLogs.ofUsers:${JSON.stringify(window)}`, () => {
    return new Loader<string, DeviceLogRecord[]>(async (userIds) => {
      const rows = await scope.em.getConnection().execute<Record<string, unknown>[]>(
        `select * from (
           select *, row_number() over (partition by user_id order by created_time desc, id) as position
           from device_logs
           where user_id in (${placeholders(userIds.length)}) and start_at_time >= ? and end_at_time < ?
         ) ranked where position > ? and position <= ? order by created_time desc, id`,
        [...userIds, window.startAtTime, window.endAtTime, window.page * window.size, (window.page + 1) * window.size],
      );
      const byUser = new Map<string, DeviceLogRecord[]>(userIds.map((id) => [id, []]));
      for (const row of rows) byUser.get(row.user_id as string)?.push(scope.em.map(DeviceLogSchema, row));
      return userIds.map((id) => byUser.get(id) ?? []);
    });
  });
}
