import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isDatabaseUnavailable } from '../../infra/database/availability';
import { executeBound } from '../../infra/database/orm';
import type { Logger } from '../../infra/logger';
import { servedScope, type AccessOutcome, type AccessSink } from '../../kernel/access-trail';
import { arrayLiteral } from '../../kernel/sql';

/** An access_log row as written (the table numbers and dates it). */
export interface EntryRow {
  subject_id: string;
  actor_user_id: string | null;
  actor_is_server: boolean;
  client_id: string | null;
  clinic_id: string | null;
  operation: string;
  object_ids: readonly string[];
  outcome: AccessOutcome;
  request_id: string;
}

/**
 * Rows in one statement: they travel as one array per column, whatever their number (PostgreSQL
 * reads arrays of plain values faster than a JSON document of objects: about 15% less work per
 * 100-row INSERT in pgbench, and a read of 100 accounts writes 100 entries). A row's object ids travel as the text of a PostgreSQL array,
 * since one array parameter cannot hold arrays of different lengths. With `waitForDisk` false the
 * statement's own transaction commits without waiting for the WAL flush (set_config(..., true)
 * lasts until that commit), in the same single round trip.
 */
async function insertRows(em: EntityManager, rows: readonly EntryRow[], waitForDisk = true): Promise<void> {
  // As array literals made here: the driver's own conversion escapes every element with two
  // regular expressions, which profiled as the largest part of recording in the service.
  const column = <Key extends Exclude<keyof EntryRow, 'object_ids'>>(key: Key) =>
    arrayLiteral(rows.map((row) => row[key]));
  await executeBound(
    em,
    `insert into access_log (subject_id, actor_user_id, actor_is_server, client_id, clinic_id, operation, object_ids, outcome, request_id)
     select e.subject_id, e.actor_user_id, e.actor_is_server, e.client_id, e.clinic_id, e.operation, e.object_ids::text[], e.outcome, e.request_id
       from (select set_config('synchronous_commit', $10, true)) as commit_setting,
            unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
              as e(subject_id, actor_user_id, actor_is_server, client_id, clinic_id, operation, object_ids, outcome, request_id)`,
    [
      column('subject_id'),
      column('actor_user_id'),
      column('actor_is_server'),
      column('client_id'),
      column('clinic_id'),
      column('operation'),
      arrayLiteral(rows.map((row) => arrayLiteral(row.object_ids))),
      column('outcome'),
      column('request_id'),
      waitForDisk ? 'on' : 'off',
    ],
  );
}

/** The most rows one INSERT carries; more wait for the next. */
const MAX_BATCH_ROWS = 5000;
/**
 * The most entries waiting for their INSERT before requests wait too: memory stays bounded
 * when the database is slow or away.
 */
const MAX_QUEUED_ROWS = 50_000;
/** Wait before writing again after the database could not be reached. */
const RETRY_DELAY_MS = 500;
/**
 * How long rows gather before an INSERT, unless a reader is waiting or a batch is full. Without
 * it a busy instance wrote an INSERT (a transaction of its own) for nearly every request: at
 * 2,000 one-entry reads a second, statement and commit overhead made recording cost 14%.
 */
const GATHER_MS = 10;

/**
 * The entries of reads, from every request, written together in the background: a request hands
 * its rows over and its answer goes out at once (unless MAX_QUEUED_ROWS are already waiting);
 * rows gather for GATHER_MS (or while the previous INSERT runs) and go in one. Answers used to wait
 * for their INSERT: on the bench's read paths that cost a quarter of their throughput
 * (test/bench/scenarios/access-log.ts), against the 10% the access log may cost.
 *
 * What is not yet written: reading the log first waits for everything handed over before
 * (`flush`), so a request sees the entries of the requests this instance answered before it;
 * a database that cannot be reached keeps the rows queued and tried again; stopping the service
 * writes what is queued (`close`). The INSERT commits without waiting for the disk (synchronous_commit
 * off, for its transaction only). So what a crash can lose is the entries of the last moments:
 * of the service process (those still queued) or of PostgreSQL itself (not yet flushed to the
 * WAL); never a change's, which are written in the change's own, fully durable, transaction.
 */
export class GroupedEntryWriter {
  private queue: EntryRow[] = [];
  /** Rows ever handed over, and rows ever written (or given up): a flush waits for the first to reach the second. */
  private handedOver = 0;
  private settled = 0;
  private flushes: { upTo: number; done: () => void }[] = [];
  private writing = false;
  /** Set when stopping gave up: the queue is no longer retried. */
  private abandoned = false;
  /** Ends the current gathering wait at once (a reader waits, or a batch is full). */
  private stopGathering: (() => void) | undefined;

  constructor(
    private readonly em: () => EntityManager,
    private readonly logger: Logger,
  ) {}

  write(rows: readonly EntryRow[]): Promise<void> {
    this.queue.push(...rows);
    this.handedOver += rows.length;
    if (!this.writing) void this.drain();
    else if (this.queue.length >= MAX_BATCH_ROWS) this.stopGathering?.();
    return this.queue.length > MAX_QUEUED_ROWS ? this.flush() : Promise.resolve();
  }

  /** Resolves once every row handed over before the call is written. */
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
    this.logger.error({ entries: this.queue.length }, 'access log entries were lost at shutdown');
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length && !this.abandoned) {
      if (!this.flushes.length && this.queue.length < MAX_BATCH_ROWS) await this.gather();
      const batch = this.queue.slice(0, MAX_BATCH_ROWS);
      try {
        await insertRows(this.em(), batch, false);
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          this.logger.warn({ err: error, entries: this.queue.length }, 'access log entries wait for the database');
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS).unref());
          continue;
        }
        // A statement PostgreSQL refused would be refused again: the batch is logged and given up.
        this.logger.error({ err: error, entries: batch.length }, 'access log entries could not be written');
      }
      this.queue.splice(0, batch.length);
      this.settled += batch.length;
      const due = this.flushes.filter((flush) => flush.upTo <= this.settled);
      this.flushes = this.flushes.filter((flush) => flush.upTo > this.settled);
      due.forEach((flush) => flush.done());
    }
    this.writing = false;
  }

  /** Waits GATHER_MS for more rows, or less if stopGathering is called. */
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
 * The access trail's sink: inside a transaction (a change), the entries go into it; otherwise
 * (reads) through the grouped writer.
 */
export function accessSink(grouped: GroupedEntryWriter): AccessSink {
  return async (em, { principal, requestId }, events) => {
    const rows = events.map((event) => ({
      subject_id: event.subjectId,
      actor_user_id: principal.userId,
      actor_is_server: principal.isServer,
      client_id: principal.clientId,
      clinic_id: event.clinicId,
      operation: event.operation,
      object_ids: event.objectIds,
      outcome: event.outcome,
      request_id: requestId,
    }));
    if (em.getTransactionContext()) await insertRows(em, rows);
    else await grouped.write(rows);
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
