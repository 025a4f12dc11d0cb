import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf, staleReadsOf } from '../../infra/database/sql-runner';
import type { PageArgs } from '../../kernel/paging';
import { hourFrom, hourOf } from './access-log.hours';
import { andAll, conditions, RECORD_COLUMNS, type AccessLogFilter, type StoredEntryRow } from './access-log.sql';
import { ENTRY_SLOTS } from './access-log.repository';

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

/**
 * One span of each user's log, for all users of a batch at once: `$1` the users, `$2` the
 * newest hour each may still read, `$3` how many entries each still needs; `$4` the oldest hour
 * the filter reaches, `$5` the span's length. Each user's newest `$5` hours (from its hours'
 * primary key), then its entries in their records (keyed `<user>/<hour>` by the GIN index), newest
 * first, the filter's conditions from `$6` on. A user whose span holds no entry still answers a
 * row (entry columns null): how many hours its span found, and the oldest, say where to go on.
 * `after`, when given, holds the cursor's hour and entry id (every hour read is at most the
 * cursor's, so "before the cursor" is an earlier hour or a smaller id).
 */
const span = (filters: readonly string[], after: { hour: string; id: string } | null) =>
  `select u.subject_id as owner, k.found, k.oldest, e.*
     from unnest($1::text[], $2::integer[], $3::integer[]) as u(subject_id, up_to, wanted)
     cross join lateral (
       select array_agg(u.subject_id || '/' || hour) as keys, count(*)::integer as found, min(hour) as oldest
         from (select hour from access_log_hours where subject_id = u.subject_id and hour between $4 and u.up_to
                order by hour desc limit $5) hours
     ) k
     left join lateral (
       select r.id * ${ENTRY_SLOTS} + s.position - 1 as id, s.subject_id, ${RECORD_COLUMNS}, s.object_ids::text[] as object_ids
         from access_log_records r, unnest(r.subject_ids, r.object_ids) with ordinality as s(subject_id, object_ids, position)
        where access_log_hour_keys(r.subject_ids, r.at) && k.keys and s.subject_id = u.subject_id${andAll(filters)}
          ${after ? `and (access_log_hour(r.at) < ${after.hour} or r.id * ${ENTRY_SLOTS} + s.position - 1 < ${after.id})` : ''}
        order by access_log_hour(r.at) desc, r.id desc, s.position desc limit u.wanted
     ) e on true
    order by u.subject_id, access_log_hour(e.at) desc, e.id desc`;

/** The users' entries in the records of `keys` (an array expression over `u.subject_id`), the filter's conditions on `r`. */
const entriesIn = (keys: string, filters: readonly string[]) =>
  `select coalesce(sum(cardinality(array_positions(r.subject_ids, u.subject_id))), 0) from access_log_records r
    where access_log_hour_keys(r.subject_ids, r.at) && ${keys}${andAll(filters)}`;

/**
 * Stores the counts of the users' (`$1`) hours from `$2` to `$3` that are over and not yet
 * counted: each such hour is read once, and later counts add up the stored ones. The hours are
 * locked in account, then hour order, as the access log's INSERT locks them
 * (access-log.writer.ts), so two statements never wait for each other in a cycle; their records
 * are found in one scan of the GIN index for all of them.
 */
const STORE_COUNTS = `with uncounted as (
    select subject_id, hour from access_log_hours
     where subject_id = any($1::text[]) and hour between $2 and $3 and allowed is null
       and hour < access_log_hour(now()) - ${OPEN_HOURS}
     order by subject_id, hour for update),
  counted as (
    select u.subject_id, u.hour,
           sum(n) filter (where r.outcome = 'ALLOWED') as allowed,
           sum(n) filter (where r.outcome = 'REFUSED') as refused
      from access_log_records r
      join uncounted u on u.subject_id = any(r.subject_ids) and u.hour = access_log_hour(r.at),
           cardinality(array_positions(r.subject_ids, u.subject_id)) as n
     where access_log_hour_keys(r.subject_ids, r.at) && array(select subject_id || '/' || hour from uncounted)
     group by 1, 2)
  update access_log_hours h set allowed = coalesce(c.allowed, 0), refused = coalesce(c.refused, 0)
    from uncounted u left join counted c on c.subject_id = u.subject_id and c.hour = u.hour
   where h.subject_id = u.subject_id and h.hour = u.hour and h.allowed is null`;

/** The stored counts that answer for an outcome filter. */
const STORED = { ALLOWED: 'allowed', REFUSED: 'refused', all: 'allowed + refused' } as const;

/**
 * The count of each user's (`$1`) hours `$2` to `$3`: the stored counts of the hours from `$4`
 * to `$5` (those the time filter covers whole), and the entries of the other hours read from
 * their records, the filter's conditions from `$6` on.
 */
const count = (filter: AccessLogFilter, filters: readonly string[]) =>
  `select u.subject_id,
          (select coalesce(sum(${STORED[filter.outcome ?? 'all']}), 0) from access_log_hours
            where subject_id = u.subject_id and hour between $4 and $5 and allowed is not null)
        + (${entriesIn(
          `array(select u.subject_id || '/' || hour from access_log_hours
                  where subject_id = u.subject_id and hour between $2 and $3 and (allowed is null or hour not between $4 and $5))`,
          filters,
        )}) as n
     from unnest($1::text[]) as u(subject_id)`;

/** The hours a filter's time range reaches. */
const hoursOf = (filter: AccessLogFilter) => ({
  from: filter.startAt ? hourOf(filter.startAt) : HOURS.min,
  to: filter.endAt ? hourOf(filter.endAt) : HOURS.max,
});

/** Where one user's page stands between spans. */
interface Reading {
  userId: string;
  upTo: number;
  rows: StoredEntryRow[];
}

/**
 * Up to `args.first + 1` entries of each user's log (the one more says whether a page follows),
 * in one statement per span for all the users: the hours each has entries in, newest first from
 * the cursor's, and in each span's hours the records that reached the user. A span is read only
 * for the users whose pages it can still fill. On a replica when one is fit, the same for every span.
 */
export async function userLogPages(
  em: EntityManager,
  userIds: readonly string[],
  filter: AccessLogFilter,
  args: PageArgs,
): Promise<StoredEntryRow[][]> {
  const { sql, params } = conditions(filter, 6);
  const hours = hoursOf(filter);
  const limit = args.first + 1;
  const upTo = Math.min(hours.to, args.after ? (args.after[0] as number) : HOURS.max);
  const readings: Reading[] = userIds.map((userId) => ({ userId, upTo, rows: [] }));
  let open = readings;
  const reads = staleReadsOf(em);
  for (let length = FIRST_SPAN_HOURS; open.length; length *= SPAN_GROWTH) {
    // Only the first span can hold the cursor's hour.
    const after = length === FIRST_SPAN_HOURS ? args.after : null;
    const cursor = after ? { hour: `$${params.length + 6}::integer`, id: `$${params.length + 7}::bigint` } : null;
    const { rows } = await reads.bound(span(sql, cursor), [
      open.map((reading) => reading.userId),
      open.map((reading) => reading.upTo),
      open.map((reading) => limit - reading.rows.length),
      hours.from,
      length,
      ...params,
      ...(after ?? []),
    ]);
    const spans = new Map<string, { found: number; oldest: number }>();
    const byUser = new Map(open.map((reading) => [reading.userId, reading]));
    for (const row of rows) {
      spans.set(row.owner as string, { found: row.found as number, oldest: row.oldest as number });
      if (row.id !== null) byUser.get(row.owner as string)!.rows.push(row as unknown as StoredEntryRow);
    }
    // A user goes on to the next, longer span while its page is short and this span was full.
    open = open.filter((reading) => {
      const read = spans.get(reading.userId);
      if (!read || reading.rows.length >= limit || read.found < length) return false;
      reading.upTo = read.oldest - 1;
      return true;
    });
  }
  return readings.map((reading) => reading.rows);
}

/** How many entries each user's log holds under `filter`, storing the counts of hours that are over. */
export async function userLogCounts(
  em: EntityManager,
  userIds: readonly string[],
  filter: AccessLogFilter,
): Promise<number[]> {
  const { sql, params } = conditions(filter, 6);
  const hours = hoursOf(filter);
  const whole = {
    from: filter.startAt ? hourFrom(filter.startAt) : HOURS.min,
    to: filter.endAt ? hourOf(filter.endAt) - 1 : HOURS.max,
  };
  await sqlOf(em).bound(STORE_COUNTS, [userIds, hours.from, hours.to]);
  const { rows } = await sqlOf(em).bound(count(filter, sql), [
    userIds,
    hours.from,
    hours.to,
    whole.from,
    whole.to,
    ...params,
  ]);
  const counts = new Map(rows.map((row) => [row.subject_id as string, Number(row.n)]));
  return userIds.map((userId) => counts.get(userId) ?? 0);
}
