import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from './principal';
import { sqlReadsOf, type UnitOfWorkHolder } from './units-of-work';
import { USER_ID_PATTERN } from './validation';

/** Whether an access to another account's data was let through or refused. */
export type AccessOutcome = 'ALLOWED' | 'REFUSED';

/** An account acted on, with the objects of it the operation names (a blob, a device log, a dataset). */
export interface AccessTarget {
  userId: string;
  objectIds: readonly string[];
}

/**
 * The subject of an entry whose operation named no account: an email address or id of none, or
 * something that is no id at all. The log keeps the attempt, never the string sent: an account's
 * log is its id's, and a subject is stored in a column sized for ids (a longer one failed every
 * INSERT it was in). Shaped like no account id, so no account's log ever shows it.
 */
export const UNKNOWN_SUBJECT = 'unknown';

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

/** Who made the decisions of a trail: the request's caller and id, and its unit of work. */
export interface TrailOwner extends UnitOfWorkHolder {
  principal: Principal;
  requestId: string;
}

/**
 * Writes events in one statement, with the caller of `owner` as their accessor, inside `em`'s
 * transaction when it has one.
 */
export type AccessSink = (em: EntityManager, owner: TrailOwner, events: readonly AccessEvent[]) => Promise<void>;

/** Whether two decisions on the same account say the same thing (one entry says both). */
function sameDecision(one: AccessEvent, other: AccessEvent): boolean {
  return (
    one.outcome === other.outcome &&
    one.operation === other.operation &&
    one.clinicId === other.clinicId &&
    one.objectIds.length === other.objectIds.length &&
    one.objectIds.every((id, index) => id === other.objectIds[index])
  );
}

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
  /**
   * Every decision recorded, by account: a nested query asks about the same account many times,
   * and one entry says it. Looked up by account, without building a key string per call: a read
   * of 100 accounts with their shares asks about 300 times.
   */
  private readonly seen = new Map<string, AccessEvent[]>();

  constructor(private readonly sink: AccessSink | null) {}

  /**
   * A subject not shaped like an account id is recorded as UNKNOWN_SUBJECT here; one shaped like
   * an id that no account has is replaced where the entry is written (the access-log domain).
   */
  record(event: Omit<AccessEvent, 'operation'>): void {
    if (!this.sink) return;
    const { outcome, objectIds, clinicId } = event;
    const subjectId = USER_ID_PATTERN.test(event.subjectId) ? event.subjectId : UNKNOWN_SUBJECT;
    const recorded: AccessEvent = { subjectId, outcome, operation: this.operation, objectIds, clinicId };
    const known = this.seen.get(subjectId);
    if (known?.some((other) => sameDecision(other, recorded))) return;
    if (known) known.push(recorded);
    else this.seen.set(subjectId, [recorded]);
    this.pending.push(recorded);
  }

  /** Writes what was recorded since the last write, within `em` (the request's, or a transaction's). */
  async flush(owner: TrailOwner, em?: EntityManager): Promise<void> {
    if (!this.sink || !this.pending.length) return;
    const events = this.pending;
    this.pending = [];
    // Outside a transaction the sink only queues the entries: a request that forked no unit of
    // work for its reads needs none for them either.
    await this.sink(em ?? sqlReadsOf(owner), owner, events);
  }

  /** A change rolled back: what led to it is not kept either. */
  discard(): void {
    this.pending = [];
  }
}
