import { Loader } from '../../kernel/loader';
import type { Scope } from '../../kernel/scope';
import { lastTimeZonesOf } from './datasets.repository';

/**
 * The time zone each user's uploads last named: the `timezone` of the newest dataset (by when it
 * was opened) that has one, in one SELECT for the request. Datasets, not readings: an uploader
 * states the zone once per upload, and records rarely carry one.
 */
export function lastTimeZoneLoader(scope: Scope): Loader<string, string | null> {
  return scope.loaders.get('glucose.lastTimeZones', () => {
    return new Loader<string, string | null>(async (userIds) => {
      const byUser = await lastTimeZonesOf(scope.em, userIds);
      return userIds.map((id) => byUser.get(id) ?? null);
    });
  });
}
