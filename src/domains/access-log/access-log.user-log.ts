import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../infra/database/orm';
import type { PageArgs } from '../../kernel/paging';
import { hourFrom, hourOf } from './access-log.hours';
import { andAll, conditions, RECORD_COLUMNS, type AccessLogFilter, type StoredEntryRow } from './access-log.sql';
import { ENTRY_SLOTS } from './access-log.writer';

/**
 * A user's log: the hours in which records reached the user (`access_log_hours`), and in each
 * the records keyed `<user>/<hour>` by the GIN index `access_log_records_hour_keys`
 * (migrations/Migration20261125120000_access_log_hours.ts). Newest first is by hour, then by
 * entry id: ids only grow, but a record's hour is the clock of the instance that wrote it.
 */

/** The hour numbers `access_log_hours` can hold (a PostgreSQL integer). */
const HOURS = { min: -2_147_483_648, max: 2_147_483_647 } as const;

/**
 * A page is read a span of hours at a time, newest first: the first span is one hour, and each
 * next one four times longer, so a sparse log takes a few round trips and a busy hour one.
 */
const FIRST_SPAN_HOURS = 1;
const SPAN_GROWTH = 4;

/**
 * Hours whose counts are not stored: the current one and the two before it. Records are dated
 * by the instance that hands them over and written within moments, so an older hour gets no
 * more (one written later, after an outage, clears the stored counts: access-log.writer.ts).
 */
const OPEN_HOURS = 2;

/** `$1` the user: the newest `$4` hours from `$3` back to `$2`. */
const SPAN = `select hour from access_log_hours where subject_id = $1::text and hour between $2 and $3
  order by hour desc limit $4`;

/**
 * The user's entries in the records keyed `$2`, newest first, the filter's conditions from `$3`
 * on; `after`, when given, holds the cursor's hour and entry id (every hour read is at most the
 * cursor's, so "before the cursor" is an earlier hour or a smaller id).
 */
const page = (filters: readonly string[], after: { hour: string; id: string } | null, limit: number) =>
  `select r.id * ${ENTRY_SLOTS} + s.position - 1 as id, s.subject_id, ${RECORD_COLUMNS}, s.object_ids::text[] as object_ids
     from access_log_records r, unnest(r.subject_ids, r.object_ids) with ordinality as s(subject_id, object_ids, position)
    where access_log_hour_keys(r.subject_ids, r.at) && $2::text[] and s.subject_id = $1::text${andAll(filters)}
      ${after ? `and (access_log_hour(r.at) < ${after.hour} or r.id * ${ENTRY_SLOTS} + s.position - 1 < ${after.id})` : ''}
    order by access_log_hour(r.at) desc, r.id desc, s.position desc limit ${limit}`;

/** The user's entries in the records of `keys` (an array expression), the filter's conditions on `r`. */
const entriesIn = (keys: string, filters: readonly string[]) =>
  `select coalesce(sum(cardinality(array_positions(r.subject_ids, $1::text))), 0) from access_log_records r
    where access_log_hour_keys(r.subject_ids, r.at) && ${keys}${andAll(filters)}`;

/**
 * Stores the counts of the user's hours from `$2` to `$3` that are over and not yet counted:
 * each such hour is read once, and later counts add up the stored ones. The hours are locked in
 * order, as the access log's INSERT locks them (access-log.writer.ts), so two statements never
 * wait for each other in a cycle.
 */
const STORE_COUNTS = `with uncounted as (
    select hour from access_log_hours
     where subject_id = $1::text and hour between $2 and $3 and allowed is null
       and hour < access_log_hour(now()) - ${OPEN_HOURS}
     order by hour for update),
  counted as (
    select access_log_hour(r.at) as hour,
           sum(n) filter (where r.outcome = 'ALLOWED') as allowed,
           sum(n) filter (where r.outcome = 'REFUSED') as refused
      from access_log_records r, cardinality(array_positions(r.subject_ids, $1::text)) as n
     where access_log_hour_keys(r.subject_ids, r.at) && array(select $1::text || '/' || hour from uncounted)
     group by 1)
  update access_log_hours h set allowed = coalesce(c.allowed, 0), refused = coalesce(c.refused, 0)
    from uncounted u left join counted c on c.hour = u.hour
   where h.subject_id = $1::text and h.hour = u.hour and h.allowed is null`;

/** The stored counts that answer for an outcome filter. */
const STORED = { ALLOWED: 'allowed', REFUSED: 'refused', all: 'allowed + refused' } as const;

/**
 * The count of the user's hours `$2` to `$3`: the stored counts of the hours from `$4` to `$5`
 * (those the time filter covers whole), and the entries of the other hours read from their
 * records, the filter's conditions from `$6` on.
 */
const count = (filter: AccessLogFilter, filters: readonly string[]) =>
  `select (select coalesce(sum(${STORED[filter.outcome ?? 'all']}), 0) from access_log_hours
            where subject_id = $1::text and hour between $4 and $5 and allowed is not null)
        + (${entriesIn(
          `array(select $1::text || '/' || hour from access_log_hours
                  where subject_id = $1::text and hour between $2 and $3 and (allowed is null or hour not between $4 and $5))`,
          filters,
        )}) as n`;

/** The hours a filter's time range reaches. */
const hoursOf = (filter: AccessLogFilter) => ({
  from: filter.startAt ? hourOf(filter.startAt) : HOURS.min,
  to: filter.endAt ? hourOf(filter.endAt) : HOURS.max,
});

/**
 * Up to `args.first + 1` entries of a user's log (the one more says whether a page follows): the
 * hours it has entries in, newest first from the cursor's, a span at a time, and in each span's
 * hours the records that reached the user.
 */
export async function userLogRows(
  em: EntityManager,
  userId: string,
  filter: AccessLogFilter,
  args: PageArgs,
): Promise<StoredEntryRow[]> {
  const { sql, params } = conditions(filter, 3);
  const hours = hoursOf(filter);
  const limit = args.first + 1;
  const rows: StoredEntryRow[] = [];
  let upTo = Math.min(hours.to, args.after ? (args.after[0] as number) : HOURS.max);
  for (let span = FIRST_SPAN_HOURS; rows.length < limit; span *= SPAN_GROWTH) {
    const spanHours = (await executeBound(em, SPAN, [userId, hours.from, upTo, span])).rows.map(
      (row) => row.hour as number,
    );
    if (!spanHours.length) break;
    // Only the first span can hold the cursor's hour.
    const after = span === FIRST_SPAN_HOURS ? args.after : null;
    const cursor = after ? { hour: `$${params.length + 3}::integer`, id: `$${params.length + 4}::bigint` } : null;
    const entries = await executeBound(em, page(sql, cursor, limit - rows.length), [
      userId,
      spanHours.map((hour) => `${userId}/${hour}`),
      ...params,
      ...(after ?? []),
    ]);
    rows.push(...(entries.rows as unknown as StoredEntryRow[]));
    if (spanHours.length < span) break;
    upTo = spanHours.at(-1)! - 1;
  }
  return rows;
}

/** How many entries the user's log holds under `filter`, storing the counts of hours that are over. */
export async function userLogCount(em: EntityManager, userId: string, filter: AccessLogFilter): Promise<number> {
  const { sql, params } = conditions(filter, 6);
  const hours = hoursOf(filter);
  const whole = {
    from: filter.startAt ? hourFrom(filter.startAt) : HOURS.min,
    to: filter.endAt ? hourOf(filter.endAt) - 1 : HOURS.max,
  };
  await executeBound(em, STORE_COUNTS, [userId, hours.from, hours.to]);
  const { rows } = await executeBound(em, count(filter, sql), [
    userId,
    hours.from,
    hours.to,
    whole.from,
    whole.to,
    ...params,
  ]);
  return Number(rows[0]!.n);
}
