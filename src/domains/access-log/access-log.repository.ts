import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf, staleReadsOf } from '../../infra/database/sql-runner';
import type { AccessOutcome } from '../../kernel/access-trail';
import type { PageArgs } from '../../kernel/paging';
import { arrayLiteral } from '../../kernel/sql';
import type { SubjectHour } from './access-log.hours';
import { andAll, conditions, RECORD_COLUMNS, type AccessLogFilter, type StoredEntryRow } from './access-log.sql';

/**
 * The access log's statements on `access_log_records` and `access_log_hours`, but a user's log,
 * which has a module of its own (access-log.user-log.repository.ts). The writer, the loaders and
 * the service hold the rules; this holds the statements.
 */

/**
 * An access_log_records row as written (the table numbers it): what one request did, of one
 * kind (operation, outcome, clinic), to each account in `subject_ids`.
 */
export interface RecordRow {
  /**
   * When the request's decisions were handed over: dated by the service, so that it knows the
   * record's hour, and each account's row of `access_log_hours`, without asking PostgreSQL.
   */
  at: Date;
  actor_user_id: string | null;
  actor_is_server: boolean;
  client_id: string | null;
  clinic_id: string | null;
  operation: string;
  outcome: AccessOutcome;
  request_id: string;
  /** At most ENTRY_SLOTS accounts. */
  subject_ids: string[];
  /** The object ids the operation named of the account at the same position of `subject_ids`. */
  object_ids: (readonly string[])[];
}

/** The accounts one record holds at most: an entry's id is its record's id × ENTRY_SLOTS + its position. */
export const ENTRY_SLOTS = 4096;

/**
 * Records, and the (account, hour) rows not yet written, in one statement (one round trip): the
 * records travel as one array per column, whatever their number (PostgreSQL reads arrays of
 * plain values faster than a JSON document of objects). A record's accounts and object ids
 * travel as the text of PostgreSQL arrays, since one array parameter cannot hold arrays of
 * different lengths. The GIN index `access_log_records_hour_keys` makes each account of a record
 * findable in its log. An (account, hour) row already there keeps its place, but loses its
 * stored counts (a record written late, into an hour already counted). `$13` 'off' commits the
 * statement's own transaction without waiting for the WAL flush (set_config(..., true) lasts
 * until that commit).
 */
const INSERT_RECORDS = `with record as (
    insert into access_log_records (at, actor_user_id, actor_is_server, client_id, clinic_id, operation, outcome, request_id, subject_ids, object_ids)
    select r.at, r.actor_user_id, r.actor_is_server, r.client_id, r.clinic_id, r.operation, r.outcome, r.request_id, r.subject_ids::text[], r.object_ids::text[]
      from (select set_config('synchronous_commit', $13, true)) as commit_setting,
           unnest($1::timestamptz[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
             as r(at, actor_user_id, actor_is_server, client_id, clinic_id, operation, outcome, request_id, subject_ids, object_ids)
    returning 1)
  insert into access_log_hours (subject_id, hour)
  select h.subject_id, h.hour from unnest($11::text[], $12::integer[]) as h(subject_id, hour)
  on conflict (subject_id, hour) do update set allowed = null, refused = null where access_log_hours.allowed is not null`;

/** Account, then hour: every statement takes the row locks of `access_log_hours` in this order, so none wait in a cycle. */
const lockOrder = (one: SubjectHour, other: SubjectHour) =>
  one.subjectId < other.subjectId ? -1 : one.subjectId > other.subjectId ? 1 : one.hour - other.hour;

/**
 * INSERT_RECORDS' parameters: the records, and the rows of `access_log_hours` to write with them
 * (each once: one statement may not update a row twice).
 */
function insertParams(records: readonly RecordRow[], hours: readonly SubjectHour[], waitForDisk: boolean): string[] {
  const locked = [...hours].sort(lockOrder);
  // As array literals made here: the driver's own conversion escapes every element with two
  // regular expressions, which profiled as the largest part of recording in the service.
  const column = <Key extends Exclude<keyof RecordRow, 'subject_ids' | 'object_ids'>>(key: Key) =>
    arrayLiteral(records.map((record) => record[key]));
  return [
    column('at'),
    column('actor_user_id'),
    column('actor_is_server'),
    column('client_id'),
    column('clinic_id'),
    column('operation'),
    column('outcome'),
    column('request_id'),
    arrayLiteral(records.map((record) => arrayLiteral(record.subject_ids))),
    arrayLiteral(records.map((record) => arrayLiteral(record.object_ids.map((ids) => arrayLiteral(ids))))),
    arrayLiteral(locked.map((pair) => pair.subjectId)),
    arrayLiteral(locked.map((pair) => pair.hour)),
    waitForDisk ? 'on' : 'off',
  ];
}

/**
 * The grouped writer's INSERT of `records` and the (account, hour) rows `hours`, in a
 * transaction of its own that commits without waiting for the disk; a prepared statement, run
 * for every batch of every request's reads.
 */
export async function insertGroupedRecords(
  em: EntityManager,
  records: readonly RecordRow[],
  hours: readonly SubjectHour[],
): Promise<void> {
  await sqlOf(em).prepared('access_log_insert_records', INSERT_RECORDS, insertParams(records, hours, false));
}

/** A change's records, inside its transaction `tx` and as durable as it. */
export async function insertRecordsWithin(
  tx: EntityManager,
  records: readonly RecordRow[],
  hours: readonly SubjectHour[],
): Promise<void> {
  await sqlOf(tx).bound(INSERT_RECORDS, insertParams(records, hours, true));
}

/**
 * Each clinic's (`$1`) log: the backward range of the records' clinic index, each record's
 * accounts in turn, the filter's conditions on the record (`r`) from `$2` on; `after` follows them.
 */
const clinicPages = (filters: readonly string[], after: string | null, limit: number) =>
  `select e.* from unnest($1::text[]) as c(clinic_id) cross join lateral (
     select r.id * ${ENTRY_SLOTS} + s.position - 1 as id, s.subject_id, ${RECORD_COLUMNS}, s.object_ids::text[] as object_ids
       from access_log_records r, unnest(r.subject_ids, r.object_ids) with ordinality as s(subject_id, object_ids, position)
      where r.clinic_id = c.clinic_id${andAll(filters)}
        ${after ? `and r.id <= ${after} / ${ENTRY_SLOTS} and r.id * ${ENTRY_SLOTS} + s.position - 1 < ${after}` : ''}
      order by r.id desc, s.position desc limit ${limit}) e
    order by e.clinic_id, e.id desc`;

const clinicCounts = (filters: readonly string[]) =>
  `select r.clinic_id, coalesce(sum(cardinality(r.subject_ids)), 0)::int as n from access_log_records r
    where r.clinic_id = any($1::text[])${andAll(filters)} group by r.clinic_id`;

/** Up to `args.first + 1` entries of each clinic's log, newest first, in one statement (on a replica when one is fit), ordered by clinic. */
export async function clinicLogPages(
  em: EntityManager,
  clinicIds: readonly string[],
  filter: AccessLogFilter,
  args: PageArgs,
): Promise<StoredEntryRow[]> {
  const { sql, params } = conditions(filter, 2);
  const after = args.after ? `$${params.length + 2}::bigint` : null;
  const { rows } = await staleReadsOf(em).bound<StoredEntryRow>(clinicPages(sql, after, args.first + 1), [
    clinicIds,
    ...params,
    ...(args.after ?? []),
  ]);
  return rows;
}

/** How many entries each clinic's log holds under `filter`, in one statement (on a replica when one is fit). */
export async function clinicLogCounts(
  em: EntityManager,
  clinicIds: readonly string[],
  filter: AccessLogFilter,
): Promise<Map<string, number>> {
  const { sql, params } = conditions(filter, 2);
  const { rows } = await staleReadsOf(em).bound<{ clinic_id: string; n: number }>(clinicCounts(sql), [
    clinicIds,
    ...params,
  ]);
  return new Map(rows.map((row) => [row.clinic_id, row.n]));
}

/**
 * Removes the records older than `retentionDays`, and the hours no record is left in (the hour
 * the retention ends in loses its stored counts); answers how many entries went.
 */
export async function removeRecordsOlderThan(em: EntityManager, retentionDays: number): Promise<number> {
  const { rows } = await sqlOf(em).bound<{ n: number }>(
    `with cutoff as (select now() - make_interval(days => $1) as at),
          gone as (
            delete from access_log_records where at < (select at from cutoff) returning cardinality(subject_ids) as entries),
          hours as (delete from access_log_hours where hour < (select access_log_hour(at) from cutoff)),
          partly as (
            update access_log_hours set allowed = null, refused = null
             where hour = (select access_log_hour(at) from cutoff) and allowed is not null)
     select coalesce(sum(entries), 0)::int as n from gone`,
    [retentionDays],
  );
  return rows[0]!.n;
}
