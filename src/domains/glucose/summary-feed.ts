import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { LiveSubscribers } from '../../kernel/live-subscribers';
import type { Scope } from '../../kernel/scope';
import { assertUserId } from '../../kernel/validation';
import { MAY_READ_DATA, type AccessPolicy } from '../permissions/access-policy';
import type { SummaryKind } from './summary/buckets';
import { notify } from './summaries.repository';

/** The PostgreSQL NOTIFY channel an updated summary is announced on, to every instance. */
export const SUMMARY_CHANNEL = 'glucose_summary';

/** A summary that changed: whose, and which kind. */
export interface SummaryChange {
  userId: string;
  kind: SummaryKind;
}

/**
 * Announces a changed summary to every instance. NOTIFY is transactional: listeners hear of it
 * only once the transaction that changed the summary commits, and never if it rolls back.
 */
export async function announceSummaryChange(tx: EntityManager, change: SummaryChange): Promise<void> {
  await notify(tx, SUMMARY_CHANNEL, JSON.stringify(change));
}

/** Told of every summary change this instance hears, after the account's own subscribers. */
export type SummaryListener = (change: SummaryChange) => Promise<void>;

/**
 * The live summary changes of this instance's subscribers, fed by the NOTIFY of every instance.
 * Access is checked when a subscription starts and again before each change is handed on (a
 * share revoked), which then ends the subscription with the refusal; what each change reveals is
 * read afresh, with the subscriber's access at that moment, by whoever turns it into a response.
 * Other domains follow the changes through onChange (docs/architecture.md).
 */
export class SummaryFeed {
  private readonly byUser = new LiveSubscribers<SummaryChange>('user');
  private readonly listeners: SummaryListener[] = [];

  constructor(
    private readonly access: AccessPolicy,
    private readonly logger: Logger,
  ) {}

  /** A user's summary changes, for callers who may read the user's data. */
  async ofUser(scope: Scope, userId: string): Promise<AsyncIterable<SummaryChange>> {
    assertUserId(userId);
    const mayFollow = () => this.access.assertAllowed(scope, userId, MAY_READ_DATA);
    await mayFollow();
    return this.byUser.follow(userId, mayFollow);
  }

  /** Registers a listener told of every change received. */
  onChange(listener: SummaryListener): void {
    this.listeners.push(listener);
  }

  /** A NOTIFY payload from any instance: handed to the subscribers and listeners it concerns. */
  async receive(payload: string): Promise<void> {
    const change = parseChange(payload);
    if (!change) return this.logger.warn({ payload }, 'ignored a malformed glucose summary notification');
    this.byUser.push(change.userId, change);
    for (const listener of this.listeners) await listener(change);
  }
}

function parseChange(payload: string): SummaryChange | null {
  try {
    const { userId, kind } = JSON.parse(payload) as Partial<SummaryChange>;
    return typeof userId === 'string' && (kind === 'cgm' || kind === 'bgm') ? { userId, kind } : null;
  } catch {
    return null;
  }
}
