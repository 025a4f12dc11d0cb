import type { DatabaseEvents } from '../infra/database/events';
import { routeStaleReads, type ReplicaMonitor } from '../infra/database/replicas';
import type { Principal } from '../kernel/principal';
import { servedScope } from '../kernel/scope';
import type { ServiceDependencies } from './foundation';

/**
 * Who a request acts as, for read-your-writes on replicas: the account, else the client, else
 * "server" (every server token shares one key: a server's write keeps every server's reads on
 * the primary a moment, never too few); null for anonymous callers and background work.
 */
export function callerKey(principal: Principal): string | null {
  if (principal.userId !== null) return `user:${principal.userId}`;
  if (principal.clientId !== null) return `client:${principal.clientId}`;
  return principal.isServer ? 'server' : null;
}

/**
 * Starts sending the reads that tolerate a little staleness to the streaming replicas of
 * DATABASE_REPLICA_URLS (src/infra/database/replicas.ts); null when none are configured. Callers'
 * writes are announced to the other instances on `events`, which must not have started yet.
 */
export function startReplicaRouting(
  { config, logger, orm }: ServiceDependencies,
  events: DatabaseEvents,
): Promise<ReplicaMonitor | null> {
  const options = {
    maxLagMs: config.replicaMaxLagMs,
    logger,
    callerOf: () => {
      const scope = servedScope.getStore();
      return scope ? callerKey(scope.principal) : null;
    },
  };
  return routeStaleReads(orm, options, events);
}
