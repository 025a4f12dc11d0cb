import { executeBound } from '../../infra/database/orm';
import type { AccessOutcome } from '../../kernel/access-trail';
import { invalid } from '../../kernel/errors';
import { pageArgs, pageOf, type PageArgs, type PagedList, type SortKey } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { rowDate } from '../../kernel/sql';
import { assertUserId } from '../../kernel/validation';
import type { AccessPolicy } from '../permissions/access-policy';
import { mayNameAccessor } from './access-log.rules';
import type { EntryRow } from './access-log.writer';

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

/** An access_log row as read: as written, with its id and time. */
type StoredEntryRow = EntryRow & { id: string | number; at: Date | string };

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
    return this.page(scope, list, { column: 'subject_id', value: userId }, options.filter ?? {}, args);
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
    return this.page(scope, list, { column: 'clinic_id', value: clinicId }, options.filter ?? {}, args);
  }

  /** Removes the entries older than the retention; answers how many. */
  async sweep(scope: Pick<Scope, 'em'>, retentionDays: number): Promise<number> {
    const { affectedRows } = await executeBound(
      scope.em,
      'delete from access_log where at < now() - make_interval(days => $1)',
      [retentionDays],
    );
    return affectedRows;
  }

  private async page(
    scope: Scope,
    list: string,
    owner: { column: 'subject_id' | 'clinic_id'; value: string },
    filter: AccessLogFilter,
    args: PageArgs,
  ): Promise<PagedList<AccessLogEntry>> {
    await this.queuedEntries();
    const { sql, params } = conditions(owner, filter);
    const after = args.after ? [`id < $${params.length + 1}`] : [];
    const { rows } = await executeBound(
      scope.em,
      `select id, at, subject_id, actor_user_id, actor_is_server, client_id, clinic_id, operation, object_ids, outcome, request_id
         from access_log where ${[...sql, ...after].join(' and ')}
        order by id desc limit ${args.first + 1}`,
      [...params, ...(args.after ?? [])],
    );
    const entries = await this.named(scope, rows as unknown as StoredEntryRow[]);
    return {
      page: pageOf(list, args, entries, (entry) => [Number(entry.id)]),
      count: async () => {
        const counted = await executeBound(
          scope.em,
          `select count(*)::int as n from access_log where ${sql.join(' and ')}`,
          params,
        );
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

/** The WHERE conditions of a log and its filter, as `$n` SQL and parameters. */
function conditions(
  owner: { column: 'subject_id' | 'clinic_id'; value: string },
  filter: AccessLogFilter,
): { sql: string[]; params: unknown[] } {
  const sql = [`${owner.column} = $1`];
  const params: unknown[] = [owner.value];
  const add = (condition: string, value: unknown) => {
    params.push(value);
    sql.push(condition.replace('?', `$${params.length}`));
  };
  if (filter.startAt && filter.endAt && filter.startAt >= filter.endAt)
    throw invalid('filter.startAt must be before filter.endAt', 'filter.startAt');
  if (filter.outcome) add('outcome = ?', filter.outcome);
  if (filter.startAt) add('at >= ?', filter.startAt);
  if (filter.endAt) add('at < ?', filter.endAt);
  return { sql, params };
}
