import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../../infra/database/sql-runner';
import type { LocalTimeHints } from '../local-time';
import type { Reading } from '../summary/buckets';
import { AGP_PERIODS, agpWindow, type AgpPeriod, type AgpWindow } from './agp';

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
 * The active CGM readings of the AGP's window in one statement: the newest counted reading
 * anchors it, as it anchors the summary (summary-store.ts `updateSummary`), and one range scan of
 * the user's index, in its (time, id) order, reads only the columns the AGP needs. Without
 * readings, one row of nulls.
 */
export async function windowReadings(
  em: EntityManager,
  userId: string,
  period: AgpPeriod,
  now: number,
): Promise<AgpRows> {
  const { rows } = await sqlOf(em).bound<{
    last: number | null;
    t: number;
    v: number;
    m: number;
    o: unknown;
    z: string | null;
    d: string;
  }>(
    `with newest as (
       select max(time) as last from glucose_readings
        where user_id = $1 and type = 'cbg' and active and time >= $2 and time <= $3)
     select (extract(epoch from n.last) * 1000)::float8 as last, r.*
       from newest n
       left join lateral (
         select (extract(epoch from time) * 1000)::float8 as t, value as v, minutes as m,
                fields->'timezoneOffset' as o, fields->>'timezone' as z, dataset_id as d
           from glucose_readings
          where user_id = $1 and type = 'cbg' and active and time <= n.last
            and time >= date_bin('1 hour', n.last, timestamptz '1970-01-01 00:00:00+00') - $4::int * interval '1 hour'
          order by time, id) r on true`,
    [userId, new Date(now - PAST_MS), new Date(now + DAY_MS), AGP_PERIODS[period] * 24 - 1],
  );
  const last = rows[0]?.last ?? null;
  if (last === null) return { window: null, readings: [] };
  return {
    window: agpWindow(last, period),
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
  const { rows } = await sqlOf(em).bound<{ id: string; z: string | null }>(
    `select id, details->>'timezone' as z from datasets where id = any($1::varchar[])`,
    [ids],
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
