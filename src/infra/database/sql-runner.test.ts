import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { createLogger, requestScope } from '../logger';
import { registry } from '../metrics';
import { openDatabase, type Orm } from './orm';
import { routeStaleReads, type ReplicaMonitor } from './replicas';
import { columnsOf, recordOf, sqlOf, staleReadsOf } from './sql-runner';

let database: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url, entities, 2);
  await sqlOf(orm.em.fork()).run('create table runner_probe (name text not null)');
});
afterAll(async () => {
  await orm?.close();
  await database?.release();
});

describe('the SQL runner', () => {
  it('runs every kind of statement inside the transaction, rolled back with it', async () => {
    await expect(
      orm.em.fork().transactional(async (tx) => {
        const sql = sqlOf(tx);
        expect(await sql.run('insert into runner_probe (name) values (?), (?)', ['a', 'b'])).toBe(2);
        await sql.bound('insert into runner_probe (name) values ($1)', ['c']);
        expect(await sql.rows<{ n: number }>('select count(*)::int as n from runner_probe')).toEqual([{ n: 3 }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await database.query('select count(*)::int as n from runner_probe')).toEqual([{ n: 0 }]);
  });

  it('answers rows, affected rows and prepared results, each statement counted for the request', async () => {
    const scope = { requestId: 'probe', sqlStatements: 0 };
    await requestScope.run(scope, async () => {
      const sql = sqlOf(orm.em.fork());
      expect(await sql.run('insert into runner_probe (name) values (?)', ["O'Brien"])).toBe(1);
      expect(await sql.rows('select name from runner_probe where name = ?', ["O'Brien"])).toEqual([
        { name: "O'Brien" },
      ]);
      const prepared = await sql.prepared(
        'runner_probe_count',
        'select count(*)::int as n from runner_probe where name = $1',
        ["O'Brien"],
      );
      expect(prepared.rows).toEqual([{ n: 1 }]);
      const bound = await sql.bound('delete from runner_probe where name = $1', ["O'Brien"]);
      expect(bound.affectedRows).toBe(1);
    });
    expect(scope.sqlStatements).toBe(4);
  });

  it('names the columns an entity declares, for a prepared statement’s select list', () => {
    expect(columnsOf(orm.em.fork(), orm.getMetadata().getByClassName('User').class, 'u')).toBe(
      'u.id, u.username, u.emails, u.password_hash, u.roles, u.email_verified, u.terms_accepted, ' +
        'u.created_time, u.created_user_id, u.modified_time, u.modified_user_id',
    );
  });

  it('makes a plain record of an entity’s row, as the ORM reads it, with nothing kept in the unit of work', async () => {
    const user = orm.getMetadata().getByClassName('User').class;
    await database.query(
      `insert into users (id, username, emails, roles, email_verified, created_time)
       values ('record-of', 'record@example.org', '{record@example.org}', '{patient}', true, '2026-11-28T10:00:00Z')`,
    );
    try {
      const em = orm.em.fork();
      const [row] = await sqlOf(em).rows(`select ${columnsOf(em, user, 'u')} from users u where u.id = ?`, [
        'record-of',
      ]);
      const record = recordOf(em, user, row!);
      expect(em.getUnitOfWork().getIdentityMap().values()).toHaveLength(0);
      const read = await orm.em.fork().findOneOrFail(user, { id: 'record-of' });
      expect(record).toEqual(Object.fromEntries(Object.entries(read)));
      expect(record).toMatchObject({ username: 'record@example.org', emailVerified: true });
      expect((record as { createdTime: Date }).createdTime).toEqual(new Date('2026-11-28T10:00:00Z'));
    } finally {
      await database.query(`delete from users where id = 'record-of'`);
    }
  });

  it('runs a reusable read as a named prepared statement on the pool, and unnamed inside a transaction', async () => {
    // The statement looks itself up: PostgreSQL lists a connection's protocol-level prepared statements.
    const itself = "select name from pg_prepared_statements where name = 'runner_probe_itself' and $1::int = 1";
    const scope = { requestId: 'probe', sqlStatements: 0 };
    await requestScope.run(scope, async () => {
      expect(await sqlOf(orm.em.fork()).reusable('runner_probe_itself', itself, [1])).toEqual([
        { name: 'runner_probe_itself' },
      ]);
      await orm.em.fork().transactional(async (tx) => {
        const unnamed = itself.replaceAll('runner_probe_itself', 'runner_probe_in_transaction');
        expect(await sqlOf(tx).reusable('runner_probe_in_transaction', unnamed, [1])).toEqual([]);
        await sqlOf(tx).run('insert into runner_probe (name) values (?)', ['uncommitted']);
        const names = 'select name from runner_probe where name = any($1::text[])';
        expect(await sqlOf(tx).reusable('runner_probe_names', names, [['uncommitted', 'absent']])).toEqual([
          { name: 'uncommitted' },
        ]);
        await tx.rollback();
      });
    });
    expect(scope.sqlStatements).toBe(4);
  });
});

/**
 * Stale-tolerant reads with a replica that is configured but unreachable (nothing listens on
 * port 1), which the routing is told is up and current: each read tries it, fails, and must
 * still answer from the primary.
 */
describe('stale-tolerant reads', () => {
  let staleOrm: Orm;
  let monitor: ReplicaMonitor;
  let caller: string | null = null;

  beforeAll(async () => {
    staleOrm = await openDatabase(database.url, entities, 2, { replicaUrls: ['postgres://postgres@127.0.0.1:1/none'] });
    // Probed once at start (down), then not for an hour: the tests say when it is up.
    monitor = (await routeStaleReads(staleOrm, {
      maxLagMs: 1_000,
      callerOf: () => caller,
      logger: createLogger('silent'),
      intervalMs: 3_600_000,
    }))!;
  });
  afterAll(async () => {
    await monitor?.close();
    await staleOrm?.close();
  });

  const claimUp = () => {
    const now = performance.now();
    monitor.routing.samplePrimary({ at: now, lsn: 1n });
    monitor.routing.probed('replica-1', { at: now, replayed: 1n });
  };
  const failures = async () => {
    const values = (await registry.getSingleMetric('islet_replica_skips_total')!.get()).values;
    return values.find((value) => value.labels.reason === 'failed')?.value ?? 0;
  };

  it('answers from the primary when the replica fails, every kind of read, each try counted', async () => {
    const before = await failures();
    claimUp();
    expect(await staleReadsOf(staleOrm.em.fork()).rows('select 1 as one')).toEqual([{ one: 1 }]);
    claimUp();
    expect((await staleReadsOf(staleOrm.em.fork()).bound('select $1::int as n', [2])).rows).toEqual([{ n: 2 }]);
    claimUp();
    const streamed = [];
    for await (const row of staleReadsOf(staleOrm.em.fork()).stream('select generate_series(1, 3) as n', [], 2))
      streamed.push(row);
    expect(streamed).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect((await failures()) - before).toBe(3);
  });

  it('never tries the replica inside a transaction or in a request that wrote', async () => {
    const before = await failures();
    claimUp();
    await staleOrm.em.fork().transactional(async (tx) => {
      expect(await staleReadsOf(tx).rows('select 1 as one')).toEqual([{ one: 1 }]);
    });
    const wrote = { requestId: 'probe', sqlStatements: 0, wrote: true };
    await requestScope.run(wrote, () => staleReadsOf(staleOrm.em.fork()).rows('select 1 as one'));
    expect(await failures()).toBe(before);
  });

  it('does not blame the replica for a statement the primary would refuse too', async () => {
    const before = await failures();
    claimUp();
    await expect(staleReadsOf(staleOrm.em.fork()).rows('select ?::text as t', ['a\0b'])).rejects.toThrow(/NUL/);
    expect(await failures()).toBe(before);
  });

  it('marks a request whose transaction commits, and keeps its caller on the primary until a replica replays it', async () => {
    caller = 'user:writer';
    const scope = { requestId: 'probe', sqlStatements: 0 };
    await requestScope.run(scope, () =>
      staleOrm.em.fork().transactional((tx) => sqlOf(tx).run('insert into runner_probe (name) values (?)', ['w'])),
    );
    caller = null;
    expect(scope).toMatchObject({ wrote: true });
    monitor.routing.probed('replica-1', { at: performance.now(), replayed: 1n });
    expect(monitor.routing.choose(performance.now(), 'user:writer')).toMatchObject({ reason: 'behind_caller' });
    expect(monitor.routing.choose(performance.now(), 'user:reader')).toMatchObject({ target: 'replica' });
  });
});
