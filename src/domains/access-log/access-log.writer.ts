import type { EventSubscriber, TransactionEventArgs } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../infra/database/orm';
import { servedScope, type AccessOutcome, type AccessSink } from '../../kernel/access-trail';

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
 * Rows in one statement: they travel as one JSON parameter, whatever their number. With
 * `waitForDisk` false the statement's own transaction commits without waiting for the WAL flush
 * (set_config(..., true) lasts until that commit), in the same single round trip.
 */
async function insertRows(em: EntityManager, rows: readonly EntryRow[], waitForDisk = true): Promise<void> {
  await executeBound(
    em,
    `insert into access_log (subject_id, actor_user_id, actor_is_server, client_id, clinic_id, operation, object_ids, outcome, request_id)
     select e.subject_id, e.actor_user_id, e.actor_is_server, e.client_id, e.clinic_id, e.operation, e.object_ids, e.outcome, e.request_id
       from (select set_config('synchronous_commit', $2, true)) as commit_setting,
            jsonb_to_recordset($1::jsonb) as e(subject_id text, actor_user_id text, actor_is_server boolean, client_id text,
                                               clinic_id text, operation text, object_ids text[], outcome text, request_id text)`,
    [JSON.stringify(rows), waitForDisk ? 'on' : 'off'],
  );
}

/** The most rows one INSERT carries; more wait for the next. */
const MAX_BATCH_ROWS = 5000;
/** INSERTs running at once: a second one spares a read arriving mid-INSERT most of the wait. */
const CONCURRENT_INSERTS = 2;

/**
 * The entries of reads, from every request in flight, written together: a request hands its rows
 * over and waits until an INSERT holding them has committed, so no answer leaves before its
 * entries are in the database. While one INSERT runs, the rows of the requests arriving meanwhile
 * gather for the next. The commit does not wait for the disk (synchronous_commit off, for this
 * transaction only): waiting for the WAL flush made every read a few milliseconds slower, a
 * third of a cheap read's throughput (test/bench/scenarios/access-log.ts). What that risks is
 * the entries of the last fraction of a second if PostgreSQL itself crashes (never a partial or
 * reordered log); changes keep their entries in their own, fully durable, transactions.
 */
export class GroupedEntryWriter {
  private waiting: { rows: readonly EntryRow[]; done: (error?: unknown) => void }[] = [];
  private writers = 0;

  constructor(private readonly em: () => EntityManager) {}

  write(rows: readonly EntryRow[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ rows, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (this.writers < CONCURRENT_INSERTS) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writers += 1;
    while (this.waiting.length) {
      let count = 0;
      const taken = this.waiting.findIndex((request) => (count += request.rows.length) > MAX_BATCH_ROWS);
      // A request over the limit alone still goes, alone.
      const batch = this.waiting.splice(0, taken === -1 ? this.waiting.length : Math.max(taken, 1));
      try {
        await insertRows(
          this.em(),
          batch.flatMap((request) => request.rows),
          false,
        );
        batch.forEach((request) => request.done());
      } catch (error) {
        batch.forEach((request) => request.done(error));
      }
    }
    this.writers -= 1;
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
