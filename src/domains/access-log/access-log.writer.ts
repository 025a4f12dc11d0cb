import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isDatabaseUnavailable } from '../../infra/database/availability';
import { requestScope, type Logger } from '../../infra/logger';
import { accessLogEntriesLost } from '../../infra/metrics';
import { UNKNOWN_SUBJECT, type AccessEvent, type AccessSink } from '../../kernel/access-trail';
import { servedScope } from '../../kernel/scope';
import type { Principal } from '../../kernel/principal';
import { distinctHours, hourOf, KnownHours, type SubjectHour } from './access-log.hours';
import { ENTRY_SLOTS, insertGroupedRecords, insertRecordsWithin, type RecordRow } from './access-log.repository';

/** What a record is, for the writer's callers: the repository owns the table's shape. */
export { ENTRY_SLOTS, type RecordRow } from './access-log.repository';

const entriesIn = (records: readonly RecordRow[]) =>
  records.reduce((sum, record) => sum + record.subject_ids.length, 0);

/** The (account, hour) pairs of records, as often as they occur. */
function* subjectHoursOf(records: readonly RecordRow[]): Generator<SubjectHour> {
  for (const record of records) {
    const hour = hourOf(record.at);
    for (const subjectId of record.subject_ids) yield { subjectId, hour };
  }
}

/** The most entries one INSERT carries; more wait for the next. */
const MAX_BATCH_ENTRIES = 5000;
/**
 * The most entries waiting for their INSERT before requests wait too: memory stays bounded
 * when the database is slow or away.
 */
const MAX_QUEUED_ENTRIES = 50_000;
/** Wait before writing again after the database could not be reached. */
const RETRY_DELAY_MS = 500;
/**
 * How long records gather before an INSERT, unless a reader is waiting or a batch is full.
 * Without it a busy instance wrote an INSERT (a transaction of its own) for nearly every
 * request: at 2,000 one-entry reads a second, statement and commit overhead made recording cost
 * 14%. Even at 10 ms, about 90 INSERTs a second of a few one-entry records each added 0.2 ms of
 * PostgreSQL's CPU per request on the bench's device-log row (ratio 0.86 and 0.87); at 50 ms,
 * 0.1 ms (0.91 and 0.99). A crash of the process loses what gathered meanwhile.
 */
const GATHER_MS = 50;

/** Which of these ids are accounts (UsersService.existingIds): read outside any request. */
export type ExistingAccounts = (em: EntityManager, ids: readonly string[]) => Promise<Set<string>>;

/** A record holding the entries from `start` up to `end` of `record`. */
const sliceOf = (record: RecordRow, start: number, end?: number): RecordRow => ({
  ...record,
  subject_ids: record.subject_ids.slice(start, end),
  object_ids: record.object_ids.slice(start, end),
});

/** `records` in two parts of about half their entries each, in order; null for a single entry. */
function halves(records: readonly RecordRow[]): [RecordRow[], RecordRow[]] | null {
  if (records.length > 1) {
    const middle = Math.ceil(records.length / 2);
    return [records.slice(0, middle), records.slice(middle)];
  }
  const [record] = records;
  if (!record || record.subject_ids.length < 2) return null;
  const middle = Math.ceil(record.subject_ids.length / 2);
  return [[sliceOf(record, 0, middle)], [sliceOf(record, middle)]];
}

/**
 * The records of reads, from every request, written together in the background: a request hands
 * its records over and its answer goes out at once (unless MAX_QUEUED_ENTRIES are already
 * waiting); records gather for GATHER_MS (or while the previous INSERT runs) and go in one.
 * Answers used to wait for their INSERT: on the bench's read paths that cost a quarter of their
 * throughput (test/bench/scenarios/access-log.ts), against the 10% the access log may cost.
 *
 * What is not yet written: reading the log first waits for everything handed over before
 * (`flush`), so a request sees the entries of the requests this instance answered before it;
 * a database that cannot be reached keeps the records queued and tried again; stopping the
 * service writes what is queued (`close`). The INSERT commits without waiting for the disk
 * (synchronous_commit off, for its transaction only). So what a crash can lose is the entries of
 * the last moments: of the service process (those still queued) or of PostgreSQL itself (not yet
 * flushed to the WAL); never a change's, which are written in the change's own, fully durable,
 * transaction.
 *
 * One request's entries cannot cost another's: a subject that is no account is written as
 * UNKNOWN_SUBJECT, and a batch PostgreSQL refuses is halved and each half tried again, down to
 * the one entry it refuses, which alone is given up (counted at /metrics, logged with its
 * request id).
 */
export class GroupedEntryWriter {
  private queue: RecordRow[] = [];
  /** Entries handed over and not yet written (or given up), whether queued or being written. */
  private queued = 0;
  /** Entries ever handed over, and entries ever written (or given up): a flush waits for the first to reach the second. */
  private handedOver = 0;
  private settled = 0;
  private flushes: { upTo: number; done: () => void }[] = [];
  private writing = false;
  /** Set when stopping gave up: the queue is no longer retried. */
  private abandoned = false;
  /** Ends the current gathering wait at once (a reader waits, or a batch is full). */
  private stopGathering: (() => void) | undefined;
  private readonly knownHours = new KnownHours();

  constructor(
    private readonly em: () => EntityManager,
    private readonly logger: Logger,
    private readonly existingAccounts: ExistingAccounts,
  ) {}

  write(records: readonly RecordRow[]): Promise<void> {
    const entries = entriesIn(records);
    this.queue.push(...records);
    this.queued += entries;
    this.handedOver += entries;
    // Written for no request in particular: its statements count towards none, its lines name none.
    if (!this.writing) requestScope.exit(() => void this.drain());
    else if (this.queued >= MAX_BATCH_ENTRIES) this.stopGathering?.();
    return this.queued > MAX_QUEUED_ENTRIES ? this.flush() : Promise.resolve();
  }

  /** Resolves once every entry handed over before the call is written. */
  flush(): Promise<void> {
    if (this.settled >= this.handedOver) return Promise.resolve();
    this.stopGathering?.();
    return new Promise((done) => this.flushes.push({ upTo: this.handedOver, done }));
  }

  /** Writes what is queued, waiting at most `timeoutMs`; what is left then is logged as lost. */
  async close(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs)));
    const gaveUp = await Promise.race([this.flush().then(() => false), timedOut]);
    clearTimeout(timer);
    if (!gaveUp) return;
    this.abandoned = true;
    accessLogEntriesLost.inc({ reason: 'shutdown' }, this.queued);
    this.logger.error({ entries: this.queued }, 'access log entries were lost at shutdown');
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length && !this.abandoned) {
      if (!this.flushes.length && this.queued < MAX_BATCH_ENTRIES) await this.gather();
      const batch = this.queue.splice(0, this.nextBatchLength());
      await this.writeWhole(batch);
    }
    this.writing = false;
  }

  /**
   * Writes `batch`, in parts once PostgreSQL refuses one, in order (a flush waits for a count of
   * entries written). A database that cannot be reached delays the part it was writing.
   */
  private async writeWhole(batch: RecordRow[]): Promise<void> {
    const parts = [batch];
    while (parts.length && !this.abandoned) {
      const part = parts.pop()!;
      try {
        await this.insert(part);
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          this.logger.warn({ err: error, entries: this.queued }, 'access log entries wait for the database');
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS).unref());
          parts.push(part);
          continue;
        }
        const split = halves(part);
        if (split) {
          parts.push(split[1], split[0]);
          continue;
        }
        // A statement PostgreSQL refused would be refused again: the one entry it holds is given up.
        const [{ request_id, operation, outcome }] = part as [RecordRow];
        accessLogEntriesLost.inc({ reason: 'refused' });
        this.logger.error(
          { err: error, requestId: request_id, operation, outcome },
          'an access log entry could not be written',
        );
      }
      this.settle(entriesIn(part));
    }
  }

  /** Writes `records` in one statement, a subject that is no account written as UNKNOWN_SUBJECT. */
  private async insert(records: RecordRow[]): Promise<void> {
    const em = this.em();
    const checked = await this.withAccountsOnly(em, records);
    const hours = this.knownHours.unknown(subjectHoursOf(checked), new Date());
    await insertGroupedRecords(em, checked, hours);
    this.knownHours.remember(hours, new Date());
  }

  /**
   * `records` with each subject that is no account replaced by UNKNOWN_SUBJECT. Asks only about
   * subjects not written this hour or the last (KnownHours): on a busy instance, hardly any. An
   * account deleted since it was last written is still named by its id: an id that was an
   * account's, and fits its column.
   */
  private async withAccountsOnly(em: EntityManager, records: RecordRow[]): Promise<RecordRow[]> {
    const pairs = this.knownHours.unknown(subjectHoursOf(records), new Date());
    const unchecked = new Set(pairs.map((pair) => pair.subjectId).filter((id) => id !== UNKNOWN_SUBJECT));
    if (!unchecked.size) return records;
    const existing = await this.existingAccounts(em, [...unchecked]);
    const isUnknown = (id: string) => unchecked.has(id) && !existing.has(id);
    return records.map((record) =>
      record.subject_ids.some(isUnknown)
        ? { ...record, subject_ids: record.subject_ids.map((id) => (isUnknown(id) ? UNKNOWN_SUBJECT : id)) }
        : record,
    );
  }

  /** Counts `entries` as written (or given up), and releases the flushes waiting for them. */
  private settle(entries: number): void {
    this.queued -= entries;
    this.settled += entries;
    const due = this.flushes.filter((flush) => flush.upTo <= this.settled);
    this.flushes = this.flushes.filter((flush) => flush.upTo > this.settled);
    due.forEach((flush) => flush.done());
  }

  /** How many records at the head of the queue make the next batch: up to MAX_BATCH_ENTRIES entries, at least one record. */
  private nextBatchLength(): number {
    let entries = this.queue[0]!.subject_ids.length;
    let end = 1;
    while (end < this.queue.length && entries + this.queue[end]!.subject_ids.length <= MAX_BATCH_ENTRIES)
      entries += this.queue[end++]!.subject_ids.length;
    return end;
  }

  /** Waits GATHER_MS for more records, or less if stopGathering is called. */
  private gather(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.stopGathering?.(), GATHER_MS);
      this.stopGathering = () => {
        clearTimeout(timer);
        this.stopGathering = undefined;
        resolve();
      };
    });
  }
}

/**
 * A request's decisions as records: one per kind of decision (operation, outcome, clinic) in the
 * order first met, each holding up to ENTRY_SLOTS accounts (a server reading 100 accounts
 * writes one record of 100 entries).
 */
export function recordsOf(
  principal: Principal,
  requestId: string,
  events: readonly AccessEvent[],
  at = new Date(),
): RecordRow[] {
  const records: RecordRow[] = [];
  for (const event of events) {
    // A request makes decisions of a few kinds at most: the last record of the kind is found by looking.
    let record = records.findLast(
      (open) =>
        open.operation === event.operation && open.outcome === event.outcome && open.clinic_id === event.clinicId,
    );
    if (!record || record.subject_ids.length === ENTRY_SLOTS) {
      record = {
        at,
        actor_user_id: principal.userId,
        actor_is_server: principal.isServer,
        client_id: principal.clientId,
        clinic_id: event.clinicId,
        operation: event.operation,
        outcome: event.outcome,
        request_id: requestId,
        subject_ids: [],
        object_ids: [],
      };
      records.push(record);
    }
    record.subject_ids.push(event.subjectId);
    record.object_ids.push(event.objectIds);
  }
  return records;
}

/**
 * The access trail's sink: inside a transaction (a change), the records go into it; otherwise
 * (reads) through the grouped writer.
 */
export function accessSink(grouped: GroupedEntryWriter): AccessSink {
  return async (em, { principal, requestId }, events) => {
    const records = recordsOf(principal, requestId, events);
    // Changes are few: their transaction writes every (account, hour) row, PostgreSQL keeping those it has.
    if (em.getTransactionContext()) await insertRecordsWithin(em, records, distinctHours(subjectHoursOf(records)));
    else await grouped.write(records);
  };
}

/**
 * Every domain runs its changes in a transaction of its own; this writes the access events the
 * request recorded so far into whichever transaction commits, so a change and the decision that
 * let it happen are kept together, and a change that rolls back leaves no entry.
 */
export const accessEventsInTransactions: EventSubscriber = {
  async beforeTransactionCommit({ em }: TransactionEventArgs) {
    const scope = servedScope.getStore();
    // The ORM is opened on PostgreSQL only (src/infra/database/orm.ts).
    if (scope) await scope.accessTrail.flush(scope, em as EntityManager);
  },
  async afterTransactionRollback() {
    servedScope.getStore()?.accessTrail.discard();
  },
};
