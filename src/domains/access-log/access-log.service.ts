import { executeBound } from '../../infra/database/orm';
import type { AccessOutcome } from '../../kernel/access-trail';
import { invalid } from '../../kernel/errors';
import { pageArgs, pageOf, type PageArgs, type PagedList, type SortKey } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { rowDate } from '../../kernel/sql';
import { assertUserId } from '../../kernel/validation';
import type { AccessPolicy } from '../permissions/access-policy';
import { mayNameAccessor } from './access-log.rules';
import { ENTRY_SLOTS } from './access-log.writer';

/** An access log entry as a reader sees it: ids, and the accessor's login name where the reader may see it. */
export interface AccessLogEntry {
  id: string;
  at: Date;
  subjectId: string;
  accessorUserId: string | null;
  accessorName: string | null;
  accessorIsServer: boolean;
  clientId: string | null;
  clinicId: string | null;
  operation: string;
  objectIds: string[];
  outcome: AccessOutcome;
  requestId: string;
}

export interface AccessLogFilter {
  outcome?: AccessOutcome | null;
  startAt?: Date | null;
  endAt?: Date | null;
}

export interface AccessLogListOptions {
  filter?: AccessLogFilter | null;
  first?: number | null;
  after?: string | null;
}

/** Asserts that the caller administers the clinic (CLINIC_ADMIN or a server token); from the clinics domain. */
export type ClinicAdminCheck = (scope: Scope, clinicId: string) => Promise<void>;

/** Login names of accounts by id, without access checks (names are shown only as mayNameAccessor allows). */
export type AccountNames = (scope: Scope, userIds: readonly string[]) => Promise<Map<string, string>>;

/** An entry as read: its record's columns, with the entry's own id, account and object ids. */
interface StoredEntryRow {
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
const RECORD_COLUMNS =
  'r.at, r.actor_user_id, r.actor_is_server, r.client_id, r.clinic_id, r.operation, r.outcome, r.request_id';

/** ` and a and b` for conditions `[a, b]`; nothing for none. */
const andAll = (conditions: readonly string[]) => conditions.map((condition) => ` and ${condition}`).join('');

/**
 * A page of a log, newest first, and its count, as SQL with the filter's conditions on the
 * record (`r`):
 * - a user's: the backward range of `access_log_entries`' primary key from the cursor, each
 *   entry's record found by its id (the filters then read the record);
 * - a clinic's: the backward range of the records' clinic index, each record's accounts in turn.
 * `$1` is the owner; `after` and `first` follow the filter's parameters.
 */
const LOGS = {
  user: {
    page: (filters: readonly string[], after: string | null, limit: number) =>
      `select e.id, e.subject_id, ${RECORD_COLUMNS}, r.object_ids[e.id % ${ENTRY_SLOTS} + 1]::text[] as object_ids
         from access_log_entries e join access_log_records r on r.id = e.id / ${ENTRY_SLOTS}
        where e.subject_id = $1${andAll(filters)} ${after ? `and e.id < ${after}` : ''}
        order by e.id desc limit ${limit}`,
    // Without a filter the count reads the key alone.
    count: (filters: readonly string[]) =>
      filters.length
        ? `select count(*)::int as n from access_log_entries e join access_log_records r on r.id = e.id / ${ENTRY_SLOTS}
            where e.subject_id = $1${andAll(filters)}`
        : 'select count(*)::int as n from access_log_entries e where e.subject_id = $1',
  },
  clinic: {
    page: (filters: readonly string[], after: string | null, limit: number) =>
      `select r.id * ${ENTRY_SLOTS} + s.position - 1 as id, s.subject_id, ${RECORD_COLUMNS}, s.object_ids::text[] as object_ids
         from access_log_records r, unnest(r.subject_ids, r.object_ids) with ordinality as s(subject_id, object_ids, position)
        where r.clinic_id = $1${andAll(filters)}
          ${after ? `and r.id <= ${after} / ${ENTRY_SLOTS} and r.id * ${ENTRY_SLOTS} + s.position - 1 < ${after}` : ''}
        order by r.id desc, s.position desc limit ${limit}`,
    count: (filters: readonly string[]) =>
      `select coalesce(sum(cardinality(r.subject_ids)), 0)::int as n from access_log_records r where r.clinic_id = $1${andAll(filters)}`,
  },
};

/** Cursors hold the entry id, the list's one sort key (ids only grow, so newest first is id descending). */
const isEntryKey = (key: SortKey) => key.length === 1 && typeof key[0] === 'number' && Number.isSafeInteger(key[0]);

/**
 * Reads the access log (entries are written by the access policy's trail, see access-log.writer):
 * a user's own log, its custodians' and servers'; a clinic's (what reached patients through it)
 * for its admins and servers. Nothing here changes or removes an entry but the retention sweep.
 */
export class AccessLogService {
  constructor(
    private readonly access: AccessPolicy,
    private readonly assertClinicAdmin: ClinicAdminCheck,
    private readonly accountNames: AccountNames,
    /** Writes the read entries this instance has queued (access-log.writer): a reader sees them. */
    private readonly queuedEntries: () => Promise<void> | undefined = () => undefined,
  ) {}

  /** The log of one account's data, newest first: the account, its custodians and servers may read it. */
  async ofUser(scope: Scope, userId: string, options: AccessLogListOptions = {}): Promise<PagedList<AccessLogEntry>> {
    assertUserId(userId);
    const list = `access-log:user:${userId}:${JSON.stringify(options.filter ?? {})}`;
    const args = pageArgs(list, options.first, options.after, isEntryKey);
    await this.access.assertAllowed(scope, userId, ['custodian']);
    return this.page(scope, list, LOGS.user, userId, options.filter ?? {}, args);
  }

  /** What the clinic's clinicians did through it, newest first: its admins and servers may read it. */
  async ofClinic(
    scope: Scope,
    clinicId: string,
    options: AccessLogListOptions = {},
  ): Promise<PagedList<AccessLogEntry>> {
    const list = `access-log:clinic:${clinicId}:${JSON.stringify(options.filter ?? {})}`;
    const args = pageArgs(list, options.first, options.after, isEntryKey);
    await this.assertClinicAdmin(scope, clinicId);
    return this.page(scope, list, LOGS.clinic, clinicId, options.filter ?? {}, args);
  }

  /**
   * Removes the records older than the retention, and their entries (found by the range of
   * their ids, through the entries' BRIN index); answers how many entries.
   */
  async sweep(scope: Pick<Scope, 'em'>, retentionDays: number): Promise<number> {
    const { rows } = await executeBound(
      scope.em,
      `with gone as (delete from access_log_records where at < now() - make_interval(days => $1) returning id),
            entries as (
              delete from access_log_entries
               where id >= (select min(id) from gone) * ${ENTRY_SLOTS} and id < ((select max(id) from gone) + 1) * ${ENTRY_SLOTS}
                 and id / ${ENTRY_SLOTS} in (select id from gone)
              returning 1)
       select count(*)::int as n from entries`,
      [retentionDays],
    );
    return rows[0]!.n as number;
  }

  private async page(
    scope: Scope,
    list: string,
    log: (typeof LOGS)[keyof typeof LOGS],
    owner: string,
    filter: AccessLogFilter,
    args: PageArgs,
  ): Promise<PagedList<AccessLogEntry>> {
    await this.queuedEntries();
    const { sql, params } = conditions(filter);
    const after = args.after ? `$${params.length + 2}::bigint` : null;
    const { rows } = await executeBound(scope.em, log.page(sql, after, args.first + 1), [
      owner,
      ...params,
      ...(args.after ?? []),
    ]);
    const entries = await this.named(scope, rows as unknown as StoredEntryRow[]);
    return {
      page: pageOf(list, args, entries, (entry) => [Number(entry.id)]),
      count: async () => {
        const counted = await executeBound(scope.em, log.count(sql), [owner, ...params]);
        return counted.rows[0]!.n as number;
      },
    };
  }

  /** Entries with the accessor's login name where the reader may see it: one name query per page. */
  private async named(scope: Scope, rows: StoredEntryRow[]): Promise<AccessLogEntry[]> {
    const nameable = rows.filter((row) => row.actor_user_id && mayNameAccessor(scope.principal, row.outcome));
    const names = nameable.length
      ? await this.accountNames(scope, [...new Set(nameable.map((row) => row.actor_user_id!))])
      : new Map<string, string>();
    return rows.map((row) => ({
      id: String(row.id),
      at: rowDate(row.at)!,
      subjectId: row.subject_id,
      accessorUserId: row.actor_user_id,
      accessorName: nameable.includes(row) ? (names.get(row.actor_user_id!) ?? null) : null,
      accessorIsServer: row.actor_is_server,
      clientId: row.client_id,
      clinicId: row.clinic_id,
      operation: row.operation,
      objectIds: [...row.object_ids],
      outcome: row.outcome,
      requestId: row.request_id,
    }));
  }
}

/** The filter as SQL conditions on the record `r`, with parameters from `$2` on. */
function conditions(filter: AccessLogFilter): { sql: string[]; params: unknown[] } {
  const sql: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, value: unknown) => {
    params.push(value);
    sql.push(condition.replace('?', `$${params.length + 1}`));
  };
  if (filter.startAt && filter.endAt && filter.startAt >= filter.endAt)
    throw invalid('filter.startAt must be before filter.endAt', 'filter.startAt');
  if (filter.outcome) add('r.outcome = ?', filter.outcome);
  if (filter.startAt) add('r.at >= ?', filter.startAt);
  if (filter.endAt) add('r.at < ?', filter.endAt);
  return { sql, params };
}
