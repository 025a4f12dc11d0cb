import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { entities } from '../../entities';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { eventually } from '../../../test/support/eventually';
import { openDatabase, type Orm } from '../database/orm';
import { SharedRateLimiter } from './shared-rate-limiter';

let database: TestDatabase;
/** Two instances' connections to one database. */
let first: Orm;
let second: Orm;

beforeAll(async () => {
  database = await createTestDatabase();
  [first, second] = await Promise.all([
    openDatabase(database.url, entities, 2),
    openDatabase(database.url, entities, 2),
  ]);
});
afterAll(async () => {
  await Promise.all([first?.close(), second?.close()]);
  await database?.release();
});

describe('a rate limit shared through PostgreSQL', () => {
  it('is one budget for every instance: takes through either draw on the same bucket', async () => {
    // 0.1 a second: no token comes back while the test runs.
    const [one, other] = [new SharedRateLimiter(first, 0.1, 3), new SharedRateLimiter(second, 0.1, 3)];
    const waits = [await one.take('dev1:10.0.0.1'), await other.take('dev1:10.0.0.1'), await one.take('dev1:10.0.0.1')];
    expect(waits).toEqual([0, 0, 0]);
    expect(await other.take('dev1:10.0.0.1')).toBe(10);
    expect(await one.take('dev1:10.0.0.1')).toBe(10);
    // Another address, or the same one in another realm, has its own bucket.
    expect(await other.take('dev1:10.0.0.2')).toBe(0);
    expect(await other.take('qa1:10.0.0.1')).toBe(0);
  });

  it('refills at its rate, and a refused take does not delay the refill', async () => {
    const limiter = new SharedRateLimiter(first, 20, 1);
    expect(await limiter.take('refill')).toBe(0);
    expect(await limiter.take('refill')).toBe(1);
    await eventually(async () => (await limiter.take('refill')) === 0, 'a token comes back within a second');
  });
});
