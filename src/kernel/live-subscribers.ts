import { Repeater, SlidingBuffer } from '@repeaterjs/repeater';
import { liveSubscriptions } from '../infra/metrics';

/**
 * Changes a subscriber has not taken yet. Only the newest ones matter (a change replaces the one
 * before), so a slow dashboard makes the feed drop its oldest changes, not grow.
 */
const BUFFERED_CHANGES = 32;

type Push<T> = (change: T) => void;

/**
 * The live subscribers of this instance to one topic (an account's summaries, a clinic's
 * patients' summaries), by what each follows. Access is checked when a subscription starts (by
 * its owner) and again before each change is handed on, which then ends the subscription with
 * the refusal.
 */
export class LiveSubscribers<T> {
  private readonly byKey = new Map<string, Set<Push<T>>>();

  /** `topic`: the label of the live-subscriptions gauge. */
  constructor(private readonly topic: string) {}

  /** What is followed by at least one subscriber. */
  keys(): string[] {
    return [...this.byKey.keys()];
  }

  get size(): number {
    return this.byKey.size;
  }

  /** Hands a change to the subscribers of `key`. */
  push(key: string, change: T): void {
    for (const push of this.byKey.get(key) ?? []) push(change);
  }

  /** The changes of `key` from now on, each handed on once `mayFollow` passes again. */
  follow(key: string, mayFollow: () => Promise<void>): AsyncIterable<T> {
    const changes = new Repeater<T>(async (push, stop) => {
      const deliver: Push<T> = (change) => void push(change);
      const pushes = this.byKey.get(key) ?? new Set();
      this.byKey.set(key, pushes.add(deliver));
      liveSubscriptions.inc({ topic: this.topic });
      await stop;
      liveSubscriptions.dec({ topic: this.topic });
      pushes.delete(deliver);
      if (pushes.size === 0) this.byKey.delete(key);
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
