import { describe, expect, it } from '@jest/globals';
import { useTestOrm } from '../../../test/support/test-orm';
import { sqlOf } from '../../infra/database/sql-runner';
import { ClinicCopyCache } from './clinic-copy-cache';
import {
  clinicCopyJoins,
  clinicCopyRevisionsOf,
  keptClinicCopies,
  type StoredClinicCopy,
} from './summaries.repository';

const copyOf = (text: string): StoredClinicCopy => ({
  kind: 'cgm',
  lastData: new Date('2026-11-20T00:00:00Z'),
  firstData: null,
  lastUploadDate: null,
  lastUpdatedDate: null,
  outdatedSince: null,
  text: Buffer.from(text),
  periods: null,
});

describe('ClinicCopyCache', () => {
  it('answers a kept copy by its revision and side, as the same object every time', () => {
    const cache = new ClinicCopyCache(4096);
    const copy = copyOf('{"1d":"é"}');
    expect(cache.keep('7', false, () => copy)).toBe(copy);
    expect(cache.keep('7', false, () => copyOf('{"1d":"é"}'))).toBe(copy);
    expect(cache.get('7', false)).toBe(copy);
    expect(cache.get('7', true)).toBeUndefined();
    expect(cache.get('8', false)).toBeUndefined();
  });

  it('forgets the least recently used copies beyond its budget', () => {
    const cache = new ClinicCopyCache(600);
    cache.keep('1', false, () => copyOf('x'.repeat(200)));
    cache.keep('2', false, () => copyOf('y'.repeat(200)));
    expect(cache.get('1', false)).toBeUndefined();
    expect(cache.get('2', false)?.text?.toString()).toBe('y'.repeat(200));
    expect(cache.size).toBeLessThanOrEqual(600);
  });
});

const testOrm = useTestOrm();

/** A CGM summary of `userId` whose current clinic copy is `text`. */
async function insertSummary(userId: string, text: string): Promise<void> {
  await testOrm.database.query(
    `insert into glucose_summaries (user_id, kind, last_data, first_data, last_upload_date, last_updated_date,
                                    periods, clinic_periods, clinic_offset_periods, schema_version)
     values ($1, 'cgm', '2026-11-20', '2026-11-01', '2026-11-20', now(), '{}', $2, '{}', 6)`,
    [userId, text],
  );
}

const revisionOf = async (userId: string) =>
  (await testOrm.database.query(`select revision::text from glucose_summaries where user_id = $1`, [userId]))[0]!
    .revision;

/** The user's copies as the patient list's page names them: revisions, through clinicCopyJoins. */
async function pageRevisions(userId: string) {
  const { columns, joins } = clinicCopyJoins('u.user_id');
  const [row] = await sqlOf(testOrm.orm.em.fork()).rows(
    `select ${columns} from (select ?::text as user_id) u ${joins}`,
    [userId],
  );
  return [{ userId, revisions: clinicCopyRevisionsOf(row!) }];
}

const textsOf = (users: { copies: StoredClinicCopy[] }[]) =>
  users.flatMap((user) => user.copies.map((copy) => copy.text?.toString()));

describe('the revision of a clinic copy', () => {
  it('is new with each new text or date shown, and stays with anything else', async () => {
    await insertSummary('revised-1', '{"1d":1}');
    const first = await revisionOf('revised-1');
    await testOrm.database.query(
      `update glucose_summaries set pending_from = now(), queued_at = now() where user_id = 'revised-1'`,
    );
    await testOrm.database.query(
      `update glucose_summaries set clinic_periods = '{"1d":1}' where user_id = 'revised-1'`,
    );
    expect(await revisionOf('revised-1')).toBe(first);
    const changes = [
      `clinic_periods = '{"1d":2}'`,
      `clinic_offset_periods = '{"1d":0}'`,
      `outdated_since = now()`,
      `last_data = '2026-11-21'`,
      `first_data = '2026-10-01'`,
      `last_upload_date = '2026-11-21'`,
      `last_updated_date = now() + interval '1 minute'`,
    ];
    let last = first;
    for (const change of changes) {
      await testOrm.database.query(`update glucose_summaries set ${change} where user_id = 'revised-1'`);
      const next = await revisionOf('revised-1');
      expect([change, BigInt(next) > BigInt(last)]).toEqual([change, true]);
      last = next;
    }
  });
});

describe('keptClinicCopies', () => {
  it('reads a copy once, then answers it by its revision without reading it again', async () => {
    await insertSummary('kept-1', '{"1d":"kept"}');
    const page = await pageRevisions('kept-1');
    const [read] = await keptClinicCopies(testOrm.orm.em.fork(), false, page);
    expect(textsOf([read!])).toEqual(['{"1d":"kept"}']);
    // Gone from the database: only the kept copy can answer the page read before, as the same object.
    await testOrm.database.query(`delete from glucose_summaries where user_id = 'kept-1'`);
    const [again] = await keptClinicCopies(testOrm.orm.em.fork(), false, page);
    expect(again!.copies[0]).toBe(read!.copies[0]);
  });

  it('shows a copy changed after the page was read as it is now, never the one kept before', async () => {
    await insertSummary('changed-1', '{"1d":"before"}');
    expect(textsOf(await keptClinicCopies(testOrm.orm.em.fork(), false, await pageRevisions('changed-1')))).toEqual([
      '{"1d":"before"}',
    ]);
    await testOrm.database.query(`update glucose_summaries set last_data = '2026-11-21' where user_id = 'changed-1'`);
    const [now] = await keptClinicCopies(testOrm.orm.em.fork(), false, await pageRevisions('changed-1'));
    expect(now!.copies.map((copy) => [copy.text?.toString(), copy.lastData])).toEqual([
      ['{"1d":"before"}', new Date('2026-11-21T00:00:00Z')],
    ]);
  });

  it('reads again, as it is now, a copy that changed between the page and its read', async () => {
    await insertSummary('raced-1', '{"1d":"paged"}');
    const page = await pageRevisions('raced-1');
    await testOrm.database.query(
      `update glucose_summaries set clinic_periods = '{"1d":"newer"}', last_data = '2026-11-22' where user_id = 'raced-1'`,
    );
    const [read] = await keptClinicCopies(testOrm.orm.em.fork(), false, page);
    expect(read!.copies.map((copy) => [copy.text?.toString(), copy.lastData])).toEqual([
      ['{"1d":"newer"}', new Date('2026-11-22T00:00:00Z')],
    ]);
  });

  it('reads a copy without a text (a summary from before the copy was kept) every time, from its periods', async () => {
    await testOrm.database.query(
      `insert into glucose_summaries (user_id, kind, last_data, last_updated_date, periods, schema_version)
       values ('legacy-1', 'cgm', '2026-11-20', now(), '{"periods":{"1d":{"old":1}}}', 6)`,
    );
    const page = await pageRevisions('legacy-1');
    const [first] = await keptClinicCopies(testOrm.orm.em.fork(), false, page);
    expect(first!.copies.map((copy) => [copy.text, copy.periods])).toEqual([[null, { '1d': { old: 1 } }]]);
    await testOrm.database.query(`delete from glucose_summaries where user_id = 'legacy-1'`);
    expect((await keptClinicCopies(testOrm.orm.em.fork(), false, page))[0]!.copies).toEqual([]);
  });
});
