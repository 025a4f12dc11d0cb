import type { EntityManager } from '@mikro-orm/postgresql';
import { staleReadsOf } from '../../../infra/database/sql-runner';
import { OF_USER_AT, READINGS_WITH_SHAPES, SHAPE_OF_TYPES } from '../readings.repository';
import { AGP_PERIODS, agpWindow, type AgpPeriod, type AgpWindow } from './agp';

const CGM_SHAPES = SHAPE_OF_TYPES('$1', "'cbg'");

const DAY_MS = 86_400_000;
/** Records count toward summaries when within two years back and a day ahead of now (summary-store.ts). */
const PAST_MS = 2 * 365 * DAY_MS;

/** The window's CGM readings as columns, in the summary's order (time, id). */
export interface WindowReadings {
  /** Epoch milliseconds. */
  time: Float64Array;
  mmol: Float64Array;
  /** Minutes credited to the reading. */
  minutes: Float64Array;
  /** The record's own `timezoneOffset` and `timezone` (local-time.ts hints), as stored. */
  recordOffset: unknown[];
  recordZone: unknown[];
  /** The `timezone` its dataset's details name ('' or null where none). */
  datasetZone: (string | null)[];
}

/** The window's readings, where they sit, and the revision of the data they were read from. */
export interface AgpRows {
  window: AgpWindow | null;
  readings: WindowReadings;
  revision: string | null;
}

/**
 * The CGM summary row's transaction id (`xmin`): every change to a user's CGM readings marks that
 * row outdated in the change's own transaction (glucose.service.ts, summaries.repository.ts
 * `markOutdated`), which writes a new version of the row with the writer's id, and the updater's
 * rewrite of it gives another. So an unchanged `xmin` means unchanged readings; null without a row.
 */
const REVISION = `(select xmin::text from glucose_summaries where user_id = $1 and kind = 'cgm')`;

/** The revision of the user's CGM readings (see REVISION), one index lookup, on a replica when one is fit. */
export async function readingsRevision(em: EntityManager, userId: string): Promise<string | null> {
  const { rows } = await staleReadsOf(em).bound<{ revision: string | null }>(`select ${REVISION} as revision`, [
    userId,
  ]);
  return rows[0]!.revision;
}

/**
 * The active CGM readings of the AGP's window in one statement (on a replica when one is fit), with
 * their revision from the same snapshot: the newest counted reading
 * anchors it, as it anchors the summary (summary-store.ts `updateSummary`), and one range scan of
 * the user's index reads only the columns the AGP needs.
 *
 * The readings come back as one JSON value of columns, in (time, id) order: epoch seconds,
 * values and minutes as three arrays, then the local-time hints (local-time.ts) only where they
 * change: `[index, the record's timezoneOffset as stored, its timezone, its dataset's timezone]`
 * for the first reading and each reading whose hints differ from its predecessor's. Thousands of
 * rows cost the driver microseconds each to parse into objects, and the garbage of it; arrays of
 * numbers parse natively at a fraction, and a dataset's readings mostly share their hints. The
 * aggregates take the rows in the order of the sorted subquery they read, as PostgreSQL feeds
 * them when nothing is joined or grouped above it (agp.test.ts checks the order).
 */
export async function windowReadings(
  em: EntityManager,
  userId: string,
  period: AgpPeriod,
  now: number,
): Promise<AgpRows> {
  const { rows } = await staleReadsOf(em).bound<{
    last: number | null;
    readings: StatementColumns | null;
    revision: string | null;
  }>(
    `with newest as (
       select max(time) as last from glucose_readings
        where ${OF_USER_AT('$1')} and ${CGM_SHAPES} and active and time >= $2 and time <= $3)
     select (extract(epoch from n.last) * 1000)::float8 as last,
            (select json_build_array(
                      array_agg(date_part('epoch', r.time)), array_agg(r.value), array_agg(r.minutes),
                      json_agg(json_build_array(r.position, r.record_offset, r.record_zone,
                                 coalesce((select details->>'timezone' from datasets where id = r.dataset_id), '')))
                        filter (where r.position = 0 or r.record_offset is distinct from r.previous_offset
                                  or r.record_zone is distinct from r.previous_zone or r.dataset_id <> r.previous_dataset))
               from (select time, value, minutes, dataset_id, record_offset, record_zone,
                            row_number() over w - 1 as position, lag(record_offset) over w as previous_offset,
                            lag(record_zone) over w as previous_zone, lag(dataset_id) over w as previous_dataset
                       from (select r.time, r.id, r.value, s.minutes, s.dataset_id,
                                    coalesce(r.extra->'timezoneOffset', s.fields->'timezoneOffset') as record_offset,
                                    coalesce(r.extra->>'timezone', s.fields->>'timezone') as record_zone
                               from ${READINGS_WITH_SHAPES}
                              where ${OF_USER_AT('$1', 'r.user_id')} and r.${CGM_SHAPES} and r.active and r.time <= n.last
                                and r.time >= date_bin('1 hour', n.last, timestamptz '1970-01-01 00:00:00+00')
                                              - $4::int * interval '1 hour') r
                     window w as (order by time, id)
                      order by time, id) r) as readings,
            ${REVISION} as revision
       from newest n`,
    [userId, new Date(now - PAST_MS), new Date(now + DAY_MS), AGP_PERIODS[period] * 24 - 1],
  );
  const { last, readings, revision } = rows[0]!;
  return {
    window: last === null ? null : agpWindow(last, period),
    readings: columns(readings ?? [[], [], [], []]),
    revision,
  };
}

/** The statement's columns: seconds, values, minutes and the hints where they change. */
type StatementColumns = [
  (number | null)[],
  (number | null)[],
  (number | null)[],
  [index: number, offset: unknown, zone: string | null, datasetZone: string][] | null,
];

/** The statement's columns as WindowReadings: each reading's hints are those of the last change at or before it. */
function columns([seconds, mmol, minutes, changes]: StatementColumns): WindowReadings {
  const count = seconds?.length ?? 0;
  const readings: WindowReadings = {
    // Epoch seconds as PostgreSQL's shortest double; rounding restores the stored millisecond.
    time: Float64Array.from(seconds ?? [], (value) => Math.round(value! * 1000)),
    mmol: Float64Array.from(mmol ?? []),
    minutes: Float64Array.from(minutes ?? []),
    recordOffset: new Array<unknown>(count),
    recordZone: new Array<unknown>(count),
    datasetZone: new Array<string | null>(count),
  };
  for (const [at, [start, offset, zone, datasetZone]] of (changes ?? []).entries()) {
    const end = changes![at + 1]?.[0] ?? count;
    readings.recordOffset.fill(offset, start, end);
    readings.recordZone.fill(zone, start, end);
    readings.datasetZone.fill(datasetZone, start, end);
  }
  return readings;
}
