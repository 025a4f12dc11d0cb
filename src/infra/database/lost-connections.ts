import type pg from 'pg';
import type { Orm } from './orm';

/**
 * Gives back to `pool` every connection that is lost (its server side ended: a database restart,
 * `pg_terminate_backend`) while lent out and that its borrower then never gives back.
 *
 * Kysely, under MikroORM, gives a transaction's connection back only after its COMMIT or ROLLBACK
 * succeeded: one whose connection was cut mid-transaction fails both and is never given back. The
 * pool counts it as lent forever, so each cut costs a slot of the pool, and closing the pool
 * (`pool.end()` waits for every lent connection) waited out the whole shutdown deadline. A lost
 * connection can run nothing more, so giving it back on its borrower's behalf loses nothing: the
 * pool then discards it.
 */
export function releaseLostConnections(pool: pg.Pool): void {
  const lent = new Set<pg.PoolClient>();
  const watched = new WeakSet<pg.PoolClient>();
  const giveBackIfKept = (client: pg.PoolClient) =>
    // After the borrower's own error handling has run: in the usual case it gives it back itself.
    setImmediate(() => {
      if (!lent.has(client)) return;
      client.release(new Error('the database connection was lost'));
      // A borrower giving it back later would make pg-pool throw (released twice).
      client.release = () => undefined;
    });
  pool.on('acquire', (client: pg.PoolClient) => {
    lent.add(client);
    if (watched.has(client)) return;
    watched.add(client);
    client.once('end', () => giveBackIfKept(client));
  });
  pool.on('release', (_error: Error | undefined, client: pg.PoolClient) => lent.delete(client));
}

/** releaseLostConnections on the ORM's own pool (MikroORM's pg Pool, `getNativeClient`). */
export async function releaseLostConnectionsOf(orm: Orm): Promise<void> {
  releaseLostConnections(await orm.em.getConnection().getNativeClient());
}
