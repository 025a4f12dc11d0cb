import type { PubSub, SubscribeResolverData } from 'type-graphql';
import { LoaderRegistry, type Scope } from '../kernel/scope';

/** What a subscription field hands its topic's source: who asks (the scope) and about what. */
export interface LiveTarget {
  id: string;
  scope: Scope;
}

/** The topic id of a subscription whose only argument names what it follows (`userId`, `clinicId`). */
export const liveTarget =
  (argument: string) =>
  ({ args, context }: SubscribeResolverData<unknown, Record<string, string>, Scope>): LiveTarget => ({
    id: args[argument]!,
    scope: context,
  });

/**
 * A topic's events for a target; rejects (FORBIDDEN, NOT_FOUND, ...) when the caller may not follow
 * it. Each `next()` of the events runs on a renewed scope, so a source may check access again
 * before it hands an event on, and end the subscription with the error when access is gone.
 */
export type LiveSource = (scope: Scope, id: string) => Promise<AsyncIterable<unknown>>;

/**
 * Each event is resolved with a unit of work and loaders of its own: what a dashboard receives is
 * read afresh (the identity map and DataLoader caches of the previous event would be stale).
 * graphql-js resolves one event before it asks for the next, so renewing the scope when it asks
 * is safe, and the source's own access check for the event then shares the event's loaders.
 * Not an async generator: its `return()` would wait behind the pending `next()` (until the next
 * event), so an unsubscribed dashboard would stay followed; this one passes `return()` through.
 */
function renewingScope<T>(events: AsyncIterable<T>, scope: Scope): AsyncIterableIterator<T> {
  const source = events[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      scope.em = scope.em.fork();
      scope.loaders = new LoaderRegistry();
      try {
        return await source.next();
      } catch (error) {
        // The refusal that ends the subscription goes to the access log with it.
        await scope.accessTrail.flush(scope);
        throw error;
      }
    },
    return: async () => (await source.return?.()) ?? { done: true, value: undefined },
  };
}

/**
 * type-graphql's PubSub, backed by the domains' live sources instead of an in-process broker
 * (their events come through PostgreSQL NOTIFY from every instance). `subscribe` returns a
 * promise of the event stream: graphql-js awaits a subscription's source stream, so an access
 * check that refuses becomes the operation's error (FORBIDDEN) before anything is sent, which
 * type-graphql's type for `subscribe` does not spell out; test/e2e/glucose-live.test.ts covers it.
 */
export function livePubSub(sources: Record<string, LiveSource>): PubSub {
  return {
    publish(topic) {
      throw new Error(`${topic} events are published through the database, not in process`);
    },
    subscribe(topic, target) {
      const source = sources[topic];
      if (!source) throw new Error(`no live source for the topic ${topic}`);
      const { id, scope } = target as LiveTarget;
      const stream = source(scope, id).then((events) => renewingScope(events, scope));
      return stream as unknown as AsyncIterable<unknown>;
    },
  };
}
