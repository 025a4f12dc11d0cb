import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { placeholders } from '../../kernel/sql';

/**
 * The time zone each user's uploads last named: the `timezone` of the newest dataset (by when it
 * was opened) that has one, in one SELECT for the request. Datasets, not readings: an uploader
 * states the zone once per upload, and records rarely carry one.
 */
export function lastTimeZoneLoader(scope: Scope): Loader<string, string | null> {
  return scope.loaders.get('glucose.lastTimeZones', () => {
    return new Loader<string, string | null>(async (userIds) => {
      const rows = await scope.em.execute<{ user_id: string; timezone: string }[]>(
        `select distinct on (user_id) user_id, details->>'timezone' as timezone
           from datasets where user_id in (${placeholders(userIds.length)}) and details->>'timezone' is not null
          order by user_id, created_time desc, id desc`,
        [...userIds],
      );
      const byUser = new Map(rows.map((row) => [row.user_id, row.timezone]));
      return userIds.map((id) => byUser.get(id) ?? null);
    });
  });
}
