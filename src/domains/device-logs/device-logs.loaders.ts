import { Loader } from '../../kernel/loader';
import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import type { DeviceLogRecord } from './device-log.entity';
import { logCountsOf, logPagesOf, type LogWindow } from './device-logs.repository';

/** A page of the device logs of many users inside one window, newest upload first: one SELECT for the request. */
export function logPages(scope: Scope, window: LogWindow, args: PageArgs): Loader<string, DeviceLogRecord[]> {
  return scope.loaders.get(`deviceLogs.pages:${JSON.stringify([window, args])}`, () => {
    return new Loader<string, DeviceLogRecord[]>((userIds) => logPagesOf(scope.em, userIds, window, args));
  });
}

/** How many logs each user has inside one window, in one SELECT for the request. */
export function logCounts(scope: Scope, window: LogWindow): Loader<string, number> {
  return scope.loaders.get(`deviceLogs.counts:${JSON.stringify(window)}`, () => {
    return new Loader<string, number>((userIds) => logCountsOf(scope.em, userIds, window));
  });
}
