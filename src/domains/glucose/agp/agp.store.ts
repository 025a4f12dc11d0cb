import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../../infra/database/sql-runner';
import { AGP_PERIODS, agpWindow, type AgpPeriod, type AgpWindow } from './agp';

const DAY_MS = 86_400_000;
/** Records count toward summaries when within two years back and a day ahead of now (summary-store.ts). */
const PAST_MS = 2 * 365 * DAY_MS;
/** The values the statement sends per reading (see windowReadings). */
const FIELDS = 6;

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

/** The window's readings, and where they sit. */
export interface AgpRows {
  window: AgpWindow | null;
  readings: WindowReadings;
}

/**
 * The active CGM readings of the AGP's window in one statement: the newest counted reading
 * anchors it, as it anchors the summary (summary-store.ts `updateSummary`), and one range scan of
 * the user's index reads only the columns the AGP needs.
 *
 * The readings come back as one JSON array of FIELDS values each, in (time, id) order: time
 * (epoch ms as exact decimal text, which parses to the double `::float8` would give), value,
 * minutes, the record's `timezoneOffset` (its JSON as stored) and `timezone`, and its dataset's
 * `timezone` on the first reading of each run of one dataset ('' for none; null on the others),
 * so no second statement reads the datasets. Thousands of rows of six columns cost the driver
 * ~5 µs each to parse into objects, and the garbage of it; one JSON value parses natively at a
 * fraction. ARRAY(… ORDER BY) keeps the subquery's order, and one sort serves `lag` and it.
 */
export async function windowReadings(
  em: EntityManager,
  userId: string,
  period: AgpPeriod,
  now: number,
): Promise<AgpRows> {
  const { rows } = await sqlOf(em).bound<{ last: number | null; readings: unknown[] }>(
    `with newest as (
       select max(time) as last from glucose_readings
        where user_id = $1 and type = 'cbg' and active and time >= $2 and time <= $3)
     select (extract(epoch from n.last) * 1000)::float8 as last,
            ('[' || array_to_string(array(
               select concat_ws(',', extract(epoch from r.time) * 1000, r.value, r.minutes,
                        coalesce((r.fields->'timezoneOffset')::text, 'null'),
                        coalesce(to_json(r.fields->>'timezone')::text, 'null'),
                        case when r.dataset_id is distinct from lag(r.dataset_id) over w
                             then coalesce(to_json((select details->>'timezone' from datasets where id = r.dataset_id))::text, '""')
                             else 'null' end)
                 from glucose_readings r
                where r.user_id = $1 and r.type = 'cbg' and r.active and r.time <= n.last
                  and r.time >= date_bin('1 hour', n.last, timestamptz '1970-01-01 00:00:00+00') - $4::int * interval '1 hour'
               window w as (order by r.time, r.id)
                order by r.time, r.id), ',') || ']')::json as readings
       from newest n`,
    [userId, new Date(now - PAST_MS), new Date(now + DAY_MS), AGP_PERIODS[period] * 24 - 1],
  );
  const last = rows[0]!.last;
  return { window: last === null ? null : agpWindow(last, period), readings: columns(rows[0]!.readings) };
}

/** The statement's flat array as columns; a run's dataset zone is repeated on each of its readings. */
function columns(values: readonly unknown[]): WindowReadings {
  const count = values.length / FIELDS;
  const readings: WindowReadings = {
    time: new Float64Array(count),
    mmol: new Float64Array(count),
    minutes: new Float64Array(count),
    recordOffset: new Array<unknown>(count),
    recordZone: new Array<unknown>(count),
    datasetZone: new Array<string | null>(count),
  };
  let datasetZone: string | null = null;
  for (let index = 0, at = 0; index < count; index += 1, at += FIELDS) {
    readings.time[index] = values[at] as number;
    readings.mmol[index] = values[at + 1] as number;
    readings.minutes[index] = values[at + 2] as number;
    readings.recordOffset[index] = values[at + 3];
    readings.recordZone[index] = values[at + 4];
    datasetZone = (values[at + 5] as string | null) ?? datasetZone;
    readings.datasetZone[index] = datasetZone;
  }
  return readings;
}
