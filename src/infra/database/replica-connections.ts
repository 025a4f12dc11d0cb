import type { EntityManager } from '@mikro-orm/postgresql';
import type { Connection } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/sql';

/** One streaming replica's connection (and pool), as MikroORM opened it from `replicas`. */
export interface ReplicaConnection {
  /** The name ormOptions gives it: `replica-1`, `replica-2`… in DATABASE_REPLICA_URLS' order. */
  name: string;
  connection: AbstractSqlConnection;
}

/**
 * MikroORM's own read routing (`driver.getConnection('read')`) picks a replica at random; Islet
 * picks one that is up and current enough (replicas.ts), so it needs the replicas themselves. The
 * driver keeps them in its `replicas` array (protected in the typings, a plain field at run
 * time), in the order of the `replicas` option. This is the one place Islet reaches for it:
 * replica-connections.test.ts fails if an upgrade renames or reshapes it.
 */
export function replicaConnectionsOf(em: EntityManager): ReplicaConnection[] {
  const driver = em.getDriver() as unknown as { replicas?: Connection[] };
  const replicas = driver.replicas ?? [];
  const configured = em.config.get('replicas') ?? [];
  if (replicas.length !== configured.length)
    throw new Error(`MikroORM holds ${replicas.length} replica connections for ${configured.length} configured`);
  return replicas.map((connection, index) => ({
    name: configured[index]!.name ?? `replica-${index + 1}`,
    connection: connection as AbstractSqlConnection,
  }));
}
