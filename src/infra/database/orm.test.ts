import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { eventually } from '../../../test/support/eventually';
import { entities } from '../../entities';
import { requestScope } from '../logger';
import { migrations } from '../../../migrations';
import {
  executeBound,
  executePrepared,
  migrate,
  openDatabase,
  routePreparedStatements,
  schemaDrift,
  type Orm,
} from './orm';

/**
 * executeBound reaches past MikroORM to the Kysely transaction under it: these tests fail if a
 * MikroORM or Kysely upgrade moves that.
 */
let database: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url, entities, 2);
  await orm.em.fork().execute('create table bound_probe (name text not null)');
});
afterAll(async () => {
  await orm?.close();
  await database?.release();
});

describe('executeBound', () => {
  it('runs inside the entity manager’s transaction, rolled back with it', async () => {
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await executeBound(tx, 'insert into bound_probe (name) values ($1)', ['rolled back']);
        const [seen] = await tx.execute<{ n: number }[]>('select count(*)::int as n from bound_probe');
        expect(seen!.n).toBe(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await database.query('select count(*)::int as n from bound_probe')).toEqual([{ n: 0 }]);
  });

  it('binds parameters as values (quotes and array literals arrive intact) and reports affected rows', async () => {
    const names = ['O’Brien', "it's", '{"a":1}', 'back\\slash'];
    const { affectedRows } = await executeBound(
      orm.em.fork(),
      'insert into bound_probe (name) select * from unnest($1::text[])',
      [`{${names.map((name) => `"${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`],
    );
    expect(affectedRows).toBe(4);
    const rows = await database.query('select name from bound_probe order by name');
    expect(rows.map((row) => row.name).sort()).toEqual([...names].sort());
  });

  it('counts its statement for the request', async () => {
    const scope = { requestId: 'probe', sqlStatements: 0 };
    await requestScope.run(scope, () => executeBound(orm.em.fork(), 'select $1::int as one', [1]));
    expect(scope.sqlStatements).toBe(1);
  });
});

describe('executePrepared', () => {
  it('runs a named statement again with new values, counted each time', async () => {
    const scope = { requestId: 'probe', sqlStatements: 0 };
    const sql = 'insert into bound_probe (name) select * from unnest($1::text[]) returning name';
    const runs = await requestScope.run(scope, async () => [
      await executePrepared(orm.em.fork(), 'probe_insert', sql, ['{prepared-1}']),
      await executePrepared(orm.em.fork(), 'probe_insert', sql, ['{prepared-2,prepared-3}']),
    ]);
    expect(runs.map((run) => [run.affectedRows, run.rows.map((row) => row.name)])).toEqual([
      [1, ['prepared-1']],
      [2, ['prepared-2', 'prepared-3']],
    ]);
    expect(scope.sqlStatements).toBe(2);
  });

  it('runs on the direct URL’s own connections once routed there, and on the ORM’s pool again once that closes', async () => {
    // The same database under a URL of its own, whose sessions name themselves.
    const direct = `${database.url}?application_name=prepared_probe`;
    const close = await routePreparedStatements(orm, direct);
    const sessionOf = async () =>
      (
        await executePrepared(orm.em.fork(), 'probe_session', 'select current_setting($1) as name', [
          'application_name',
        ])
      ).rows[0]!.name;
    try {
      expect(await sessionOf()).toBe('prepared_probe');
    } finally {
      await close();
    }
    expect(await sessionOf()).not.toBe('prepared_probe');
    const probeSessions = "select count(*)::int as n from pg_stat_activity where application_name = 'prepared_probe'";
    await eventually(async () => (await database.query(probeSessions))[0]!.n === 0, 'closing ends its sessions');
  });
});

describe('migrate', () => {
  it('lets instances starting together on an empty database apply each migration once, and both go on', async () => {
    const empty = await createTestDatabase({ empty: true });
    const instances = await Promise.all([1, 2].map(() => openDatabase(empty.url, entities, 2)));
    try {
      const applied = await Promise.all(instances.map((instance) => migrate(instance)));
      const all = migrations.map((migration) => migration.name);
      // One of them migrated everything; the other waited, then found nothing left.
      expect(applied.map((names) => names.length).sort((a, b) => a - b)).toEqual([0, all.length]);
      expect(applied.flat()).toEqual(all);
      const recorded = await empty.query('select name from schema_migrations order by id');
      expect(recorded.map((row) => row.name)).toEqual(all);
      for (const instance of instances) expect(await schemaDrift(instance)).toBe('');
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
      await empty.release();
    }
  });
});
