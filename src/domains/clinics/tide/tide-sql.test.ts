import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database';
import { entities } from '../../../entities';
import { openDatabase, type Orm } from '../../../infra/database/orm';
import { DEFAULT_CATEGORIES, TIDE_NO_DATA_AGE_MS } from './categories';
import { tideStatement } from './tide.repository';

/**
 * The `noData` rule's two time limits at their exact boundaries (A.3): data older than 8 hours
 * (strictly) counts as stale, and the cutoff is inclusive. Over HTTP the report reads the
 * clock, so the exact instants are tested here, with the statement's `now` fixed.
 */
const CLINIC = 'a1a1a1a1a1a1a1a1a1a1a1a1';
const TAG = 'b2b2b2b2b2b2b2b2b2b2b2b2';
const NOW = new Date('2026-11-20T12:00:00.000Z');
const EIGHT_HOURS_AGO = new Date(NOW.getTime() - TIDE_NO_DATA_AGE_MS);
const CUTOFF = new Date('2026-11-19T12:00:00.000Z');
const DEXCOM_OFF = [{ providerName: 'dexcom', state: 'disconnected' }];
const ms = (date: Date, delta: number) => new Date(date.getTime() + delta);

/** Each patient: when its last CGM data is, and whether a Dexcom link of it is disconnected. */
const PATIENTS: { name: string; lastData: Date | null; dexcomOff?: boolean }[] = [
  { name: 'exactly 8 hours, disconnected', lastData: EIGHT_HOURS_AGO, dexcomOff: true },
  { name: '8 hours and 1 ms, disconnected', lastData: ms(EIGHT_HOURS_AGO, -1), dexcomOff: true },
  { name: 'exactly at the cutoff', lastData: CUTOFF },
  { name: '1 ms before the cutoff', lastData: ms(CUTOFF, -1) },
  { name: 'never any data', lastData: null },
];

let database: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url, entities, 2);
  await database.query(
    `insert into clinics (id, name, phone_numbers, preferred_bg_units, share_code, can_migrate, tier,
                          tier_description, ehr_enabled, created_time, updated_time)
     values ($1, 'Boundary Clinic', '[]', 'mg/dL', 'TIDE-EDGE-0001', false, 'tier0100', 'Free', false, now(), now())`,
    [CLINIC],
  );
  for (const [index, patient] of PATIENTS.entries()) {
    const userId = `edge-${index}`;
    await database.query(
      `insert into clinic_patients (clinic_id, user_id, full_name, tags, permissions, reviews, created_time,
                                    updated_time, data_sources)
       values ($1, $2, $3, $4, '{view}', '[]', now(), now(), $5)`,
      [CLINIC, userId, patient.name, [TAG], patient.dexcomOff ? JSON.stringify(DEXCOM_OFF) : null],
    );
    if (patient.lastData)
      await database.query(
        `insert into glucose_period_stats (user_id, kind, period, previous, last_data, time_cgm_use_percent)
         values ($1, 'cgm', '14d', false, $2, 0.9)`,
        [userId, patient.lastData],
      );
  }
});
afterAll(async () => {
  await orm?.close();
  await database?.release();
});

async function noDataNames(): Promise<string[]> {
  const parameters = {
    period: '14d' as const,
    tags: [TAG],
    lastDataCutoff: CUTOFF,
    categories: [...DEFAULT_CATEGORIES],
    excludeNoData: false,
  };
  const { sql, params } = tideStatement(CLINIC, parameters, NOW);
  const rows = await orm.em.fork().getConnection().execute<Record<string, unknown>[]>(sql, params);
  return rows.filter((row) => Number(row.part) === 1).map((row) => row.full_name as string);
}

describe('the TIDE report’s noData boundaries', () => {
  it('takes data older than 8 hours (not exactly 8) and before the cutoff (not at it), none first', async () => {
    expect(await noDataNames()).toEqual([
      'never any data',
      '1 ms before the cutoff',
      // At or after the cutoff: only a disconnected Dexcom link makes 8-hour-old data missing.
      '8 hours and 1 ms, disconnected',
    ]);
  });
});
