import type { AccessOutcome } from '../../kernel/access-trail';
import { invalid } from '../../kernel/errors';

/** The filters of a log: outcome and a time range (start included, end excluded). */
export interface AccessLogFilter {
  outcome?: AccessOutcome | null;
  startAt?: Date | null;
  endAt?: Date | null;
}

/** An entry as read: its record's columns, with the entry's own id, account and object ids. */
export interface StoredEntryRow {
  id: string | number;
  at: Date | string;
  subject_id: string;
  actor_user_id: string | null;
  actor_is_server: boolean;
  client_id: string | null;
  clinic_id: string | null;
  operation: string;
  object_ids: string[];
  outcome: AccessOutcome;
  request_id: string;
}

/** The columns of a record every entry read shows (the record is `r`). */
export const RECORD_COLUMNS =
  'r.at, r.actor_user_id, r.actor_is_server, r.client_id, r.clinic_id, r.operation, r.outcome, r.request_id';

/** ` and a and b` for conditions `[a, b]`; nothing for none. */
export const andAll = (conditions: readonly string[]) => conditions.map((condition) => ` and ${condition}`).join('');

/** The filter as SQL conditions on the record `r`, with parameters from `$<first>` on. */
export function conditions(filter: AccessLogFilter, first: number): { sql: string[]; params: unknown[] } {
  const sql: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, value: unknown) => {
    params.push(value);
    sql.push(condition.replace('?', `$${first + params.length - 1}`));
  };
  if (filter.startAt && filter.endAt && filter.startAt >= filter.endAt)
    throw invalid('filter.startAt must be before filter.endAt', 'filter.startAt');
  if (filter.outcome) add('r.outcome = ?', filter.outcome);
  if (filter.startAt) add('r.at >= ?', filter.startAt);
  if (filter.endAt) add('r.at < ?', filter.endAt);
  return { sql, params };
}
