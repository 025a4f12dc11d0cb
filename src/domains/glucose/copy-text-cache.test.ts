import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { openDatabase, type Orm } from '../../infra/database/orm';
import { sqlOf } from '../../infra/database/sql-runner';
import { CopyTextCache } from './copy-text-cache';
import { clinicCopiesOfJoined, clinicCopyJoins, withCopyTexts } from './summaries.repository';

describe('CopyTextCache', () => {
  it('answers a kept text by its revision and side, as UTF-8 bytes', () => {
    const cache = new CopyTextCache(1024);
    expect(cache.keep('7', false, '{"1d":"é"}').toString()).toBe('{"1d":"é"}');
    expect(cache.get('7', false)?.toString()).toBe('{"1d":"é"}');
    expect(cache.get('7', true)).toBeUndefined();
    expect(cache.get('8', false)).toBeUndefined();
  });

  it('forgets the least recently used texts beyond its budget', () => {
    const cache = new CopyTextCache(10);
    cache.keep('1', false, '{"a":1}');
    cache.keep('2', false, '{"b":2}');
    expect(cache.get('1', false)).toBeUndefined();
    expect(cache.get('2', false)?.toString()).toBe('{"b":2}');
    expect(cache.size).toBeLessThanOrEqual(10);
  });
});

let database: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url, entities, 2);
});

afterAll(async () => {
  await orm?.close();
  await database?.release();
});

/** A CGM summary of `userId` whose current clinic copy is `text`. */
async function insertSummary(userId: string, text: string): Promise<void> {
  await database.query(
    `insert into glucose_summaries (user_id, kind, last_data, first_data, last_upload_date, last_updated_date,
                                    periods, clinic_periods, clinic_offset_periods, schema_version)
     values ($1, 'cgm', '2026-11-20', '2026-11-01', '2026-11-20', now(), '{}', $2, '{}', 6)`,
    [userId, text],
  );
}

const revisionOf = async (userId: string) =>
  (await database.query(`select revision::text from glucose_summaries where user_id = $1`, [userId]))[0]!.revision;

/** The user's copies as the patient list's page reads them: revisions, through clinicCopyJoins. */
async function pageCopies(userId: string) {
  const { columns, joins } = clinicCopyJoins('u.user_id', false);
  const [row] = await sqlOf(orm.em.fork()).rows(
    `select u.user_id, ${columns} from (select ?::text as user_id) u ${joins}`,
    [userId],
  );
  return [{ userId, copies: clinicCopiesOfJoined(row!) }];
}

const textsOf = (users: Awaited<ReturnType<typeof withCopyTexts>>) =>
  users.flatMap((user) => user.copies.map((copy) => copy.text?.toString()));

describe('the revision of a clinic copy', () => {
  it('is new with each new text, and stays with anything else', async () => {
    await insertSummary('revised-1', '{"1d":1}');
    const first = await revisionOf('revised-1');
    await database.query(`update glucose_summaries set outdated_since = now() where user_id = 'revised-1'`);
    await database.query(`update glucose_summaries set clinic_periods = '{"1d":1}' where user_id = 'revised-1'`);
    expect(await revisionOf('revised-1')).toBe(first);
    await database.query(`update glucose_summaries set clinic_periods = '{"1d":2}' where user_id = 'revised-1'`);
    const second = await revisionOf('revised-1');
    expect(BigInt(second)).toBeGreaterThan(BigInt(first));
    await database.query(`update glucose_summaries set clinic_offset_periods = '{"1d":0}' where user_id = 'revised-1'`);
    expect(BigInt(await revisionOf('revised-1'))).toBeGreaterThan(BigInt(second));
  });
});

describe('withCopyTexts', () => {
  it('reads a text once, then answers it by its revision without reading it again', async () => {
    await insertSummary('kept-1', '{"1d":"kept"}');
    const page = await pageCopies('kept-1');
    expect(textsOf(await withCopyTexts(orm.em.fork(), false, page))).toEqual(['{"1d":"kept"}']);
    // Gone from the database: only the kept text can answer the page read before.
    await database.query(`delete from glucose_summaries where user_id = 'kept-1'`);
    expect(textsOf(await withCopyTexts(orm.em.fork(), false, page))).toEqual(['{"1d":"kept"}']);
  });

  it('shows a text changed after the page was read as it is now, never the one kept before', async () => {
    await insertSummary('changed-1', '{"1d":"before"}');
    expect(textsOf(await withCopyTexts(orm.em.fork(), false, await pageCopies('changed-1')))).toEqual([
      '{"1d":"before"}',
    ]);
    await database.query(
      `update glucose_summaries set clinic_periods = '{"1d":"after"}', last_data = '2026-11-21' where user_id = 'changed-1'`,
    );
    const [now] = await withCopyTexts(orm.em.fork(), false, await pageCopies('changed-1'));
    expect(now!.copies.map((copy) => [copy.text?.toString(), copy.lastData])).toEqual([
      ['{"1d":"after"}', new Date('2026-11-21T00:00:00Z')],
    ]);
  });

  it('reads again, with its dates, a copy whose text changed between the page and its text', async () => {
    await insertSummary('raced-1', '{"1d":"paged"}');
    const page = await pageCopies('raced-1');
    await database.query(
      `update glucose_summaries set clinic_periods = '{"1d":"newer"}', last_data = '2026-11-22' where user_id = 'raced-1'`,
    );
    const [read] = await withCopyTexts(orm.em.fork(), false, page);
    expect(read!.copies.map((copy) => [copy.text?.toString(), copy.lastData])).toEqual([
      ['{"1d":"newer"}', new Date('2026-11-22T00:00:00Z')],
    ]);
  });
});
