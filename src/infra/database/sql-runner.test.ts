import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { requestScope } from '../logger';
import { openDatabase, type Orm } from './orm';
import { sqlOf } from './sql-runner';

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
});
