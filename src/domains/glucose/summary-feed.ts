import { Repeater, SlidingBuffer } from '@repeaterjs/repeater';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Scope } from '../../kernel/scope';
import { liveSubscriptions } from '../../infra/metrics';
import { arrayLiteral } from '../../kernel/sql';
import { assertUserId } from '../../kernel/validation';
import { MAY_READ_DATA, type AccessPolicy } from '../permissions/access-policy';
import { assertClinicAccess } from '../clinics/membership';
import { assertClinicId } from '../clinics/clinic-ids';
import type { SummaryKind } from './summary/buckets';

/** The PostgreSQL NOTIFY channel an updated summary is announced on, to every instance. */
export const SUMMARY_CHANNEL = 'glucose_summary';

/** A summary that changed: whose, and which kind. */
export interface SummaryChange {
  userId: string;
  kind: SummaryKind;
}

/** A change as a clinic's dashboard receives it: the patient's clinic too. */
export interface ClinicSummaryChange extends SummaryChange {
  clinicId: string;
}

/**
 * Announces a changed summary to every instance. NOTIFY is transactional: listeners hear of it
 * only once the transaction that changed the summary commits, and never if it rolls back.
 */
export async function announceSummaryChange(tx: EntityManager, change: SummaryChange): Promise<void> {
  await tx.execute('select pg_notify(?, ?)', [SUMMARY_CHANNEL, JSON.stringify(change)]);
}

/**
 * Changes a subscriber has not taken yet. Only the newest ones matter (a summary replaces the
 * one before), so a slow dashboard makes the feed drop its oldest changes, not grow.
 */
const BUFFERED_CHANGES = 32;

type Push<T> = (change: T) => void;

/**
 * The live summary changes of this instance's subscribers, fed by the NOTIFY of every instance.
 * Access is checked when a subscription starts and again before each change is handed on (a
 * share revoked, a clinician removed from the clinic, a patient from it), which then ends the
 * subscription with the refusal; what each change reveals is read afresh, with the subscriber's
 * access at that moment, by whoever turns it into a response.
 */
export class SummaryFeed {
  private readonly byUser = new Map<string, Set<Push<SummaryChange>>>();
  private readonly byClinic = new Map<string, Set<Push<ClinicSummaryChange>>>();

  constructor(
    private readonly access: AccessPolicy,
    private readonly em: () => EntityManager,
    private readonly logger: Logger,
  ) {}

  /** A user's summary changes, for callers who may read the user's data. */
  async ofUser(scope: Scope, userId: string): Promise<AsyncIterable<SummaryChange>> {
    assertUserId(userId);
    const mayFollow = () => this.access.assertAllowed(scope, userId, MAY_READ_DATA);
    await mayFollow();
    return this.follow(this.byUser, userId, 'user', mayFollow);
  }

  /** The summary changes of a clinic's patients, for its clinicians (and servers). */
  async ofClinic(scope: Scope, clinicId: string): Promise<AsyncIterable<ClinicSummaryChange>> {
    assertClinicId(clinicId);
    const mayFollow = () => assertClinicAccess(scope, clinicId, 'read');
    await mayFollow();
    return this.follow(this.byClinic, clinicId, 'clinic', mayFollow);
  }

  /** A NOTIFY payload from any instance: handed to the subscribers it concerns. */
  async receive(payload: string): Promise<void> {
    const change = parseChange(payload);
    if (!change) return this.logger.warn({ payload }, 'ignored a malformed glucose summary notification');
    for (const push of this.byUser.get(change.userId) ?? []) push(change);
    if (this.byClinic.size === 0) return;
    for (const clinicId of await this.clinicsFollowing(change.userId))
      for (const push of this.byClinic.get(clinicId) ?? []) push({ ...change, clinicId });
  }

  /** The clinics with subscribers that have this user as a patient: one query per change. */
  private async clinicsFollowing(userId: string): Promise<string[]> {
    const rows = await this.em().execute<{ clinic_id: string }[]>(
      'select clinic_id from clinic_patients where user_id = ? and clinic_id = any(?::text[])',
      [userId, arrayLiteral([...this.byClinic.keys()])],
    );
    return rows.map((row) => row.clinic_id);
  }

  private follow<T>(
    subscribers: Map<string, Set<Push<T>>>,
    key: string,
    topic: 'user' | 'clinic',
    mayFollow: () => Promise<void>,
  ): AsyncIterable<T> {
    const changes = new Repeater<T>(async (push, stop) => {
      const deliver: Push<T> = (change) => void push(change);
      const pushes = subscribers.get(key) ?? new Set();
      subscribers.set(key, pushes.add(deliver));
      liveSubscriptions.inc({ topic });
      await stop;
      liveSubscriptions.dec({ topic });
      pushes.delete(deliver);
      if (pushes.size === 0) subscribers.delete(key);
    }, new SlidingBuffer(BUFFERED_CHANGES));
    return whileAllowed(changes, mayFollow);
  }
}

/**
 * The changes, each handed on once `mayFollow` passes again; when it throws, the changes stop and
 * the error ends the subscription. The live transport renews the scope's loaders for each event
 * (src/graphql/live.ts), so the check reads the access of that moment, and reading the event then
 * reuses its answer. Not an async generator, for the reason renewingScope there gives.
 */
function whileAllowed<T>(changes: Repeater<T>, mayFollow: () => Promise<void>): AsyncIterableIterator<T> {
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      const change = await changes.next();
      if (change.done) return change;
      try {
        await mayFollow();
      } catch (error) {
        await changes.return();
        throw error;
      }
      return change;
    },
    return: () => changes.return(),
  };
}

function parseChange(payload: string): SummaryChange | null {
  try {
    const { userId, kind } = JSON.parse(payload) as Partial<SummaryChange>;
    return typeof userId === 'string' && (kind === 'cgm' || kind === 'bgm') ? { userId, kind } : null;
  } catch {
    return null;
  }
}
