import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf, staleReadsOf } from '../infra/database/sql-runner';
import type { PageArgs } from './paging';

/** `?, ?, ?` for an IN list of `count` values (the driver expands no arrays). */
export function placeholders(count: number): string {
  return count > 0 ? '?, '.repeat(count - 1) + '?' : '';
}

/** Whether a read may run on a streaming replica (`staleReadsOf`, for lists that tolerate a little staleness). */
export interface StaleOption {
  stale?: boolean;
}

/** The reads of `em`: a streaming replica's allowed when `stale` (staleReadsOf), else the primary's. */
export const readsOf = (em: EntityManager, { stale = false }: StaleOption) => (stale ? staleReadsOf(em) : sqlOf(em));

/** Conditions on a table beyond its owner, as SQL (with `?` placeholders) and their parameters. */
export interface SqlCondition {
  sql: string;
  params: readonly unknown[];
}

/** Driver rows may carry timestamps as text (MikroORM's pg settings) or as dates. */
export const rowDate = (value: unknown): Date | null =>
  value === null || value === undefined ? null : value instanceof Date ? value : new Date(value as string);

/**
 * A page of the rows of many users in `table`, newest first (then by id), one row more than
 * asked so each page knows whether more follow: a hundred users cost one SELECT. `after` is the
 * (created time, id) of the last row of the previous page; created times are written from
 * JavaScript dates, so milliseconds compare exactly. `offset` rows are skipped in the same
 * SELECT, so a deep legacy page costs what the first does.
 */
export async function newestPagesByUser(
  em: EntityManager,
  table: string,
  condition: SqlCondition,
  userIds: readonly string[],
  { first, after, offset = 0 }: PageArgs,
  reads: StaleOption = {},
): Promise<Record<string, unknown>[][]> {
  const afterParams = after === null ? [] : [new Date(after[0]), new Date(after[0]), after[1]];
  const rows = await readsOf(em, reads).rows(
    `select * from (
       select *, row_number() over (partition by user_id order by created_time desc, id) as position
       from ${table}
       where user_id in (${placeholders(userIds.length)}) and ${condition.sql}
         ${after ? 'and (created_time < ? or (created_time = ? and id > ?))' : ''}
     ) ranked where position > ? and position <= ? order by created_time desc, id`,
    [...userIds, ...condition.params, ...afterParams, offset, offset + first + 1],
  );
  const byUser = new Map<string, Record<string, unknown>[]>(userIds.map((id) => [id, []]));
  for (const row of rows) byUser.get(row.user_id as string)?.push(row);
  return userIds.map((id) => byUser.get(id) ?? []);
}

/** How many rows of `table` each user has under `condition`, in one SELECT. */
export async function countsByUser(
  em: EntityManager,
  table: string,
  condition: SqlCondition,
  userIds: readonly string[],
  reads: StaleOption = {},
): Promise<number[]> {
  const rows = await readsOf(em, reads).rows<{ user_id: string; count: string }>(
    `select user_id, count(*) as count from ${table} where user_id in (${placeholders(userIds.length)}) and ${condition.sql} group by user_id`,
    [...userIds, ...condition.params],
  );
  const counts = new Map(rows.map((row) => [row.user_id, Number(row.count)]));
  return userIds.map((id) => counts.get(id) ?? 0);
}

/** Characters a quoted array element escapes with a backslash. */
const ESCAPED_IN_ARRAYS = /["\\]/;

/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) of `values`, passed as one parameter and cast
 * in the SQL (`?::text[]`): the driver layer expands a JavaScript array into a list of
 * parameters, and a bulk insert of a thousand rows then costs thousands of parameters to format,
 * where `unnest` of a dozen arrays costs a dozen. Strings are quoted and escaped; dates go as
 * ISO 8601.
 */
export function arrayLiteral(values: readonly (string | number | boolean | Date | null)[]): string {
  const element = (value: string | number | boolean | Date | null) => {
    if (value === null) return 'NULL';
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    // ISO 8601 holds none of the characters an unquoted element must not contain.
    if (value instanceof Date) return value.toISOString();
    return ESCAPED_IN_ARRAYS.test(value) ? `"${value.replace(/["\\]/g, '\\$&')}"` : `"${value}"`;
  };
  return `{${values.map(element).join(',')}}`;
}

/** `text` for a LIKE pattern, its wildcards and the escape character escaped. */
export const likeEscaped = (text: string): string => text.replace(/[\\%_]/g, (character) => `\\${character}`);
