import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Scope } from './scope';

/** Whether an access to another account's data was let through or refused. */
export type AccessOutcome = 'ALLOWED' | 'REFUSED';

/** An account acted on, with the objects of it the operation names (a blob, a device log, a dataset). */
export interface AccessTarget {
  userId: string;
  objectIds: readonly string[];
}

/** One access decision on one account, as the access log keeps it. */
export interface AccessEvent {
  /** The account whose data or record was read or changed. */
  subjectId: string;
  outcome: AccessOutcome;
  /** The operation being served when the decision was made (see AccessTrail.operation). */
  operation: string;
  objectIds: readonly string[];
  /** The clinic whose patient grant let the caller in; null for direct grants, servers and refusals. */
  clinicId: string | null;
}

/**
 * Writes events in one statement, with the caller of `scope` as their accessor, inside `em`'s
 * transaction when it has one.
 */
export type AccessSink = (em: EntityManager, scope: Scope, events: readonly AccessEvent[]) => Promise<void>;

/**
 * The access decisions of one request, gathered where access is decided and written at most
 * twice: inside the transaction of a change (so the change and its entry commit or roll back
 * together) and once when the request's answer is ready (reads). Without a sink (recording
 * switched off) it keeps nothing.
 */
export class AccessTrail {
  /** The operation being served, named by the transport: a GraphQL root field or a REST route. */
  operation = 'unknown';
  private pending: AccessEvent[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly sink: AccessSink | null) {}

  record(event: Omit<AccessEvent, 'operation'>): void {
    if (!this.sink) return;
    const { subjectId, outcome, objectIds, clinicId } = event;
    // A nested query asks about the same account many times; one entry says it. (A joined key,
    // not JSON: a read of 100 accounts records 100 decisions, and this runs for each. Ids and
    // operation names hold no NUL.)
    const key = `${subjectId}\0${outcome}\0${this.operation}\0${clinicId}\0${objectIds.join('\0')}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.pending.push({ subjectId, outcome, operation: this.operation, objectIds, clinicId });
  }

  /** Writes what was recorded since the last write, within `em` (the request's, or a transaction's). */
  async flush(scope: Scope, em: EntityManager = scope.em): Promise<void> {
    if (!this.sink || !this.pending.length) return;
    const events = this.pending;
    this.pending = [];
    await this.sink(em, scope, events);
  }

  /** A change rolled back: what led to it is not kept either. */
  discard(): void {
    this.pending = [];
  }
}

/**
 * The Scope of the request being served, so that a transaction committing anywhere in it (every
 * domain has its own) can carry the request's recorded decisions (see the access-log domain's
 * transaction subscriber).
 */
export const servedScope = new AsyncLocalStorage<Scope>();
