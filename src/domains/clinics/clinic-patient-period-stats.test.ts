import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { CLINIC_PERIOD_STATS_TABLE } from './clinic-patient-period-stats.entity';
import { CLINIC_PERIOD_STATS_TRIGGERS } from './patient-list.repository';
import { insertClinicRow } from '../../../test/support/clinic-rows';

/**
 * The clinic copy of the period statistics is kept by the database (triggers in
 * Migration20261125020000): whatever writes either side, the copy must equal
 * glucose_period_stats joined with clinic_patients, row for row and value for value.
 */
const CLINICS = ['c1c1c1c1c1c1c1c1c1c1c1c1', 'c2c2c2c2c2c2c2c2c2c2c2c2'];

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  for (const id of CLINICS)
    await insertClinicRow(database, { id, name: 'Copy Clinic', shareCode: `COPY-${id.slice(0, 4)}-0001` });
});

afterAll(async () => {
  await database?.release();
});

beforeEach(async () => {
  await database.query('delete from clinic_patients');
  await database.query('delete from glucose_period_stats');
});

type Query = (sql: string, values: unknown[]) => Promise<unknown>;

const addPatient = (clinicId: string, userId: string, query: Query = database.query) =>
  query(
    `insert into clinic_patients (clinic_id, user_id, full_name, tags, permissions, reviews, created_time, updated_time)
     values ($1, $2::text, $2::text, '{}', '{view}', '[]', now(), now())`,
    [clinicId, userId],
  );

/** A user's 8 rows of one kind (4 periods, current and previous), each statistic a value of its own. */
const writeStats = (userId: string, kind: 'cgm' | 'bgm', value: number, query: Query = database.query) =>
  query(
    `insert into glucose_period_stats (user_id, kind, period, previous, last_data, time_in_very_low_percent, total_records, glycemia_risk_zone)
     select $1, $2, period, previous, now(), $3 + ord / 100.0, $3 * 10, 'B'
       from unnest(array['1d', '7d', '14d', '30d']) with ordinality as periods(period, ord), unnest(array[false, true]) as previous`,
    [userId, kind, value],
  );

/** Whether the backend `pid` waits for a lock another transaction holds. */
async function isWaitingOnLock(pid: number): Promise<boolean> {
  const [row] = await database.query('select wait_event_type from pg_stat_activity where pid = $1', [pid]);
  return row?.wait_event_type === 'Lock';
}

/** The copy, and what it must equal, both as sorted JSON rows of every column. */
async function copyAndExpected(): Promise<[unknown[], unknown[]]> {
  const order = 'order by clinic_id, user_id, kind, period, previous';
  const copy = await database.query(`select to_jsonb(c) as row from ${CLINIC_PERIOD_STATS_TABLE} c ${order}`);
  const expected = await database.query(
    `select to_jsonb(s) || jsonb_build_object('clinic_id', p.clinic_id) as row
       from glucose_period_stats s join clinic_patients p using (user_id) ${order}`,
  );
  return [copy.map((row) => row.row), expected.map((row) => row.row)];
}

describe('the clinic copy of the period statistics', () => {
  it('has a clinic id, then exactly the columns of glucose_period_stats in their order', async () => {
    const columns = (table: string) =>
      database.query(
        `select column_name, data_type, is_nullable from information_schema.columns
          where table_name = $1 order by ordinal_position`,
        [table],
      );
    const [copy, source] = [await columns(CLINIC_PERIOD_STATS_TABLE), await columns('glucose_period_stats')];
    expect(copy[0]).toEqual({ column_name: 'clinic_id', data_type: 'character varying', is_nullable: 'NO' });
    expect(copy.slice(1)).toEqual(source);
    expect(source.length).toBeGreaterThan(80);
  });

  it('takes a patient’s existing statistics when the patient joins a clinic, for each clinic', async () => {
    await writeStats('user-a', 'cgm', 1);
    await addPatient(CLINICS[0]!, 'user-a');
    await addPatient(CLINICS[1]!, 'user-a');
    const [copy, expected] = await copyAndExpected();
    expect(copy).toHaveLength(16);
    expect(copy).toEqual(expected);
  });

  it('follows a summary rewrite (delete and insert) and an update of a row', async () => {
    await addPatient(CLINICS[0]!, 'user-a');
    await writeStats('user-a', 'cgm', 1);
    await writeStats('user-a', 'bgm', 2);
    await database.query(`delete from glucose_period_stats where user_id = 'user-a' and kind = 'cgm'`);
    await writeStats('user-a', 'cgm', 3);
    await database.query(
      `update glucose_period_stats set time_in_very_low_percent = 0.5 where user_id = 'user-a' and period = '14d'`,
    );
    const [copy, expected] = await copyAndExpected();
    expect(copy).toHaveLength(16);
    expect(copy).toEqual(expected);
    const [row] = await database.query(
      `select time_in_very_low_percent, total_records from ${CLINIC_PERIOD_STATS_TABLE}
        where user_id = 'user-a' and kind = 'cgm' and period = '14d' and not previous`,
    );
    expect(row).toEqual({ time_in_very_low_percent: 0.5, total_records: 30 });
  });

  it('keeps only the rows of users who are patients of a clinic', async () => {
    await writeStats('not-a-patient', 'cgm', 1);
    const [copy] = await copyAndExpected();
    expect(copy).toEqual([]);
  });

  it('drops a patient’s rows from the clinic that removes the patient, not from the others', async () => {
    await writeStats('user-a', 'cgm', 1);
    await writeStats('user-b', 'cgm', 2);
    for (const clinic of CLINICS) for (const user of ['user-a', 'user-b']) await addPatient(clinic, user);
    await database.query(`delete from clinic_patients where clinic_id = $1 and user_id = 'user-a'`, [CLINICS[0]]);
    const [copy, expected] = await copyAndExpected();
    expect(copy).toHaveLength(24);
    expect(copy).toEqual(expected);
  });

  it('empties with the statistics of a deleted account, and with every patient a clinic removes', async () => {
    await writeStats('user-a', 'cgm', 1);
    await writeStats('user-b', 'cgm', 2);
    for (const clinic of CLINICS) for (const user of ['user-a', 'user-b']) await addPatient(clinic, user);
    await database.query(`delete from glucose_period_stats where user_id = 'user-a'`);
    await database.query(`delete from clinic_patients where clinic_id = $1`, [CLINICS[1]]);
    const [copy, expected] = await copyAndExpected();
    expect(copy).toHaveLength(8);
    expect(copy).toEqual(expected);
  });

  it('holds when a summary is written while its user joins a clinic, each in a transaction of its own', async () => {
    const [summaryWriter, clinic] = [new pg.Client(database.url), new pg.Client(database.url)];
    await Promise.all([summaryWriter.connect(), clinic.connect()]);
    try {
      await summaryWriter.query('begin');
      await writeStats('user-a', 'cgm', 1, (sql, values) => summaryWriter.query(sql, values));
      await clinic.query('begin');
      const [{ pid }] = (await clinic.query('select pg_backend_pid() as pid')).rows;
      // Neither sees the other's uncommitted row: the joining transaction must wait for the
      // summary's to commit, then copy its rows. The summary commits only once the joining
      // insert has either finished or is seen waiting.
      const joining = addPatient(CLINICS[0]!, 'user-a', (sql, values) => clinic.query(sql, values));
      let done = false;
      void joining.then(() => (done = true));
      while (!done && !(await isWaitingOnLock(pid))) await new Promise((resolve) => setImmediate(resolve));
      await summaryWriter.query('commit');
      await joining;
      await clinic.query('commit');
    } finally {
      await Promise.all([summaryWriter.end(), clinic.end()]);
    }
    const [copy, expected] = await copyAndExpected();
    expect(copy).toHaveLength(8);
    expect(copy).toEqual(expected);
  });

  it('moves a row whose patient key changes', async () => {
    await writeStats('user-a', 'cgm', 1);
    await addPatient(CLINICS[0]!, 'user-a');
    await database.query(`update clinic_patients set clinic_id = $1 where user_id = 'user-a'`, [CLINICS[1]]);
    const [copy, expected] = await copyAndExpected();
    expect(copy).toHaveLength(8);
    expect(copy).toEqual(expected);
  });

  it('is kept by exactly the triggers and functions its repository names', async () => {
    const named = Object.values(CLINIC_PERIOD_STATS_TRIGGERS).flatMap((keeper) =>
      keeper.triggers.map((trigger) => ({ trigger, table: keeper.on, function: keeper.function })),
    );
    const rows = await database.query(
      `select t.tgname as trigger, c.relname as table, p.proname as function
         from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
        where not t.tgisinternal and p.proname like 'clinic_period_stats_%'
        order by t.tgname`,
      [],
    );
    const byName = (one: Record<string, string>, other: Record<string, string>) =>
      one.trigger!.localeCompare(other.trigger!);
    expect([...rows].sort(byName)).toEqual([...named].sort(byName));
  });
});
