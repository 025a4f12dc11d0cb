import type { EntityManager } from '@mikro-orm/postgresql';
import { placeholders } from '../../../kernel/sql';
import type { LocalTimeHints } from '../local-time';
import type { Reading } from '../summary/buckets';
import { agpWindow, type AgpPeriod, type AgpWindow } from './agp';

const DAY_MS = 86_400_000;
/** Records count toward summaries when within two years back and a day ahead of now (summary-store.ts). */
const PAST_MS = 2 * 365 * DAY_MS;

/** A CGM reading of the window with what its own record says of its local time. */
export interface WindowReading extends Reading {
  datasetId: string;
  recordOffset: unknown;
  recordZone: string | null;
}

/** The window's readings in the summary's order (time, id), and where they sit. */
export interface AgpRows {
  window: AgpWindow | null;
  readings: WindowReading[];
}

/**
 * The active CGM readings of the AGP's window: the newest counted reading decides the window, as
 * it anchors the summary (summary-store.ts `updateSummary`), then one range scan of the user's
 * index reads only the columns the AGP needs.
 */
export async function windowReadings(
  em: EntityManager,
  userId: string,
  period: AgpPeriod,
  now: number,
): Promise<AgpRows> {
  const connection = em.getConnection();
  const [newest] = await connection.execute<{ last: number | null }[]>(
    `select (extract(epoch from max(time)) * 1000)::float8 as last from glucose_readings
      where user_id = ? and type = 'cbg' and active and time >= ? and time <= ?`,
    [userId, new Date(now - PAST_MS), new Date(now + DAY_MS)],
  );
  if (newest?.last === null || newest?.last === undefined) return { window: null, readings: [] };
  const window = agpWindow(newest.last, period);
  const rows = await connection.execute<{ t: number; v: number; m: number; o: unknown; z: string | null; d: string }[]>(
    `select (extract(epoch from time) * 1000)::float8 as t, value as v, minutes as m,
            fields->'timezoneOffset' as o, fields->>'timezone' as z, dataset_id as d
       from glucose_readings
      where user_id = ? and type = 'cbg' and active and time >= ? and time <= ?
      order by time, id`,
    [userId, new Date(window.from), new Date(newest.last)],
  );
  return {
    window,
    readings: rows.map((row) => ({
      time: row.t,
      mmol: row.v,
      minutes: row.m,
      datasetId: row.d,
      recordOffset: row.o,
      recordZone: row.z,
    })),
  };
}

/** The `timezone` each dataset's details name (null where none), in one query. */
export async function datasetZones(em: EntityManager, ids: readonly string[]): Promise<Map<string, string | null>> {
  if (!ids.length) return new Map();
  const rows = await em
    .getConnection()
    .execute<{ id: string; z: string | null }[]>(
      `select id, details->>'timezone' as z from datasets where id in (${placeholders(ids.length)})`,
      [...ids],
    );
  return new Map(rows.map((row) => [row.id, row.z]));
}

/** The local-time hints of a reading (local-time.ts), given its dataset's zone and the request's. */
export const hintsOf = (
  reading: WindowReading,
  datasetZone: string | null | undefined,
  context: Pick<LocalTimeHints, 'callerZone' | 'clinicZone'>,
): LocalTimeHints => ({
  recordOffset: reading.recordOffset,
  recordZone: reading.recordZone,
  datasetZone,
  ...context,
});
