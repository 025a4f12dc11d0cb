import type { AccessOutcome } from '../../kernel/access-trail';
import { pageArgs, pageOf, type PagedList, type SortKey } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { rowDate } from '../../kernel/sql';
import { assertUserId } from '../../kernel/validation';
import type { AccessPolicy } from '../permissions/access-policy';
import { hourOf } from './access-log.hours';
import { mayNameAccessor } from './access-log.rules';
import { removeRecordsOlderThan } from './access-log.repository';
import { clinicLogCountLoader, clinicLogPageLoader, userLogCountLoader, userLogPageLoader } from './access-log.loaders';
import type { AccessLogFilter, StoredEntryRow } from './access-log.sql';

export type { AccessLogFilter } from './access-log.sql';

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

export interface AccessLogListOptions {
  filter?: AccessLogFilter | null;
  first?: number | null;
  after?: string | null;
}

/** Asserts that the caller administers the clinic (CLINIC_ADMIN or a server token); from the clinics domain. */
export type ClinicAdminCheck = (scope: Scope, clinicId: string) => Promise<void>;

/** Login names of accounts by id, without access checks (names are shown only as mayNameAccessor allows). */
export type AccountNames = (scope: Scope, userIds: readonly string[]) => Promise<Map<string, string>>;

const isSafeInteger = (part: string | number) => typeof part === 'number' && Number.isSafeInteger(part);
/** A user's log is ordered by hour, then entry id (access-log.user-log.repository.ts). */
const isUserKey = (key: SortKey) => key.length === 2 && key.every(isSafeInteger);
/** A clinic's log is ordered by entry id (ids only grow, so newest first is id descending). */
const isClinicKey = (key: SortKey) => key.length === 1 && key.every(isSafeInteger);

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
    const filter = options.filter ?? {};
    const list = `access-log:user:${userId}:${JSON.stringify(filter)}`;
    const args = pageArgs(list, options.first, options.after, isUserKey);
    await this.access.assertAllowed(scope, userId, ['custodian']);
    await this.queuedEntries();
    const entries = await this.named(scope, await userLogPageLoader(scope, filter, args).load(userId));
    return {
      page: pageOf(list, args, entries, (entry) => [hourOf(entry.at), Number(entry.id)]),
      count: () => userLogCountLoader(scope, filter).load(userId),
    };
  }

  /** What the clinic's clinicians did through it, newest first: its admins and servers may read it. */
  async ofClinic(
    scope: Scope,
    clinicId: string,
    options: AccessLogListOptions = {},
  ): Promise<PagedList<AccessLogEntry>> {
    const filter = options.filter ?? {};
    const list = `access-log:clinic:${clinicId}:${JSON.stringify(filter)}`;
    const args = pageArgs(list, options.first, options.after, isClinicKey);
    await this.assertClinicAdmin(scope, clinicId);
    await this.queuedEntries();
    const entries = await this.named(scope, await clinicLogPageLoader(scope, filter, args).load(clinicId));
    return {
      page: pageOf(list, args, entries, (entry) => [Number(entry.id)]),
      count: () => clinicLogCountLoader(scope, filter).load(clinicId),
    };
  }

  /**
   * Removes the records older than the retention, and the hours no record is left in (the hour
   * the retention ends in loses its stored counts); answers how many entries went. The GIN
   * index loses the records' keys when PostgreSQL vacuums.
   */
  async sweep(scope: Pick<Scope, 'em'>, retentionDays: number): Promise<number> {
    return removeRecordsOlderThan(scope.em, retentionDays);
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
