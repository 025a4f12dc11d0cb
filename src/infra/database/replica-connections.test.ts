import { describe, expect, it } from '@jest/globals';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormOptions } from './orm';
import { replicaConnectionsOf } from './replica-connections';

/**
 * replicaConnectionsOf reaches into MikroORM's driver for its replica connections (its
 * `replicas` field): this fails if an upgrade renames, reorders or reshapes them. Nothing
 * connects: the ORM is built, never opened.
 */
const URLS = ['postgres://reader@127.0.0.1:1/one', 'postgres://reader@127.0.0.1:2/two'];

describe("MikroORM's replica connections", () => {
  const orm = new MikroORM(ormOptions('postgres://writer@127.0.0.1:3/primary', [], 2, { replicaUrls: URLS }));

  it('are the driver’s, one per configured replica, in order, with their names', () => {
    const replicas = replicaConnectionsOf(orm.em);
    expect(replicas.map((replica) => replica.name)).toEqual(['replica-1', 'replica-2']);
    expect(replicas.map((replica) => replica.connection.getConnectionOptions())).toMatchObject([
      { port: 1, database: 'one' },
      { port: 2, database: 'two' },
    ]);
  });

  it('are what MikroORM itself reads from, and run statements as the runner needs', () => {
    const connections = replicaConnectionsOf(orm.em).map((replica) => replica.connection);
    expect(connections).toContain(orm.em.getDriver().getConnection('read'));
    expect(connections).not.toContain(orm.em.getDriver().getConnection('write'));
    for (const connection of connections) {
      expect(typeof connection.execute).toBe('function');
      expect(typeof connection.stream).toBe('function');
      expect(typeof connection.getClient).toBe('function');
    }
  });

  it('are none without replicas', () => {
    const alone = new MikroORM(ormOptions('postgres://writer@127.0.0.1:3/primary', [], 2));
    expect(replicaConnectionsOf(alone.em)).toEqual([]);
  });
});
