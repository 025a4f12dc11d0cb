import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/database';
import { entities } from '../../../entities';
import { openDatabase, type Orm } from '../../../infra/database/orm';
import { arrayLiteral } from '../../../kernel/sql';
import { STAT_COLUMNS } from '../../glucose/period-stats';
import {
  DEFAULT_CATEGORIES,
  TIDE_CATEGORIES,
  TIDE_CATEGORY_KEYS,
  TIDE_NO_DATA_AGE_MS,
  TIDE_STATS,
  type TideCategoryKey,
} from './categories';
import { categorySql } from './tide-indexes';
import { tideStatement } from './tide.repository';
import { insertClinicRow } from '../../../../test/support/clinic-rows';

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
  await insertClinicRow(database, { id: CLINIC, name: 'Boundary Clinic', shareCode: 'TIDE-EDGE-0001' });
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

/**
 * The report reads each category's first rows from its index; the answer must be the one of
 * reading every patient, categorising and sorting them all (the statement before issue 33, kept
 * here as the reference). A clinic of 600 patients with many ties (statistics, names, last data),
 * missing statistics and rows, tags and Dexcom links, asked in several ways.
 */
const EQ_CLINIC = 'c3c3c3c3c3c3c3c3c3c3c3c3';
const TAG2 = 'd4d4d4d4d4d4d4d4d4d4d4d4';

function referenceSql(order: readonly TideCategoryKey[]): string {
  const rules = order.map((key) => TIDE_CATEGORIES[key]);
  const which = rules.length
    ? `case ${order.map((key, index) => `when ${categorySql(key)} then ${index}`).join(' ')} end`
    : 'null::int';
  const rank = rules.length
    ? `case category ${rules.map((rule, index) => `when ${index} then ${rule.descending ? '-' : ''}${STAT_COLUMNS[rule.sortBy]}`).join(' ')} end`
    : 'null::float8';
  return `with candidates as materialized (
      select p.user_id, lower(p.full_name) as name, p.data_sources, s.last_data,
             ${TIDE_STATS.map((stat) => `s.${STAT_COLUMNS[stat]}`).join(', ')}
        from clinic_patients p
        left join glucose_period_stats s on s.user_id = p.user_id and s.kind = 'cgm' and s.period = ? and s.previous = false
       where p.clinic_id = ? and p.tags @> ?::text[]
    ), categorised as (
      select *, ${which} as category from candidates where last_data >= ?
    ), clinical as (
      select *, ${rank} as sort_value from categorised where category is not null
       order by category, sort_value, name, user_id limit 100
    ), no_data as (
      select *, null::int as category, null::float8 as sort_value from candidates
       where last_data is null or (last_data < ? and (last_data < ? or exists (
         select 1 from jsonb_array_elements(coalesce(data_sources, '[]'::jsonb)) source
          where source->>'providerName' = 'dexcom' and (source->>'state') is distinct from 'connected')))
       order by last_data asc nulls first, name, user_id limit ?
    )
    select 0 as part, category, user_id, last_data, sort_value, name from clinical
    union all select 1, category, user_id, last_data, sort_value, name from no_data
     order by part, category, sort_value, last_data asc nulls first, name, user_id`;
}

describe('the TIDE report’s picks', () => {
  beforeAll(async () => {
    await insertClinicRow(database, { id: EQ_CLINIC, name: 'Equivalence Clinic', shareCode: 'TIDE-EQUI-0001' });
    await database.query(
      `insert into clinic_patients (clinic_id, user_id, full_name, tags, permissions, reviews, created_time,
                                    updated_time, data_sources)
       select $1, 'eq-' || n, case n % 7 when 0 then 'Same Name' when 1 then 'same name' else 'P' || (n % 50) end,
              case n % 3 when 0 then array[$2, $3] when 1 then array[$2] else array[$3] end, '{view}', '[]', now(), now(),
              case when n % 11 = 0 then '[{"providerName":"dexcom","state":"disconnected"}]'::jsonb
                   when n % 13 = 0 then '[{"providerName":"dexcom","state":"connected"}]'::jsonb end
         from generate_series(1, 600) n`,
      [EQ_CLINIC, TAG, TAG2],
    );
    await database.query(
      `with v as (
         select n, case when n % 10 = 0 then 0.02 + (n % 3) * 0.01 else 0.005 end as very_low,
                ((n * 11) % 10) * 0.01 as very_high
           from generate_series(1, 600) n where n % 17 <> 0
       )
       insert into glucose_period_stats (user_id, kind, period, previous, last_data, time_in_very_low_percent,
         time_in_any_low_percent, time_in_very_high_percent, time_in_any_high_percent, time_in_target_percent_delta,
         time_cgm_use_percent, time_in_target_percent, time_in_extreme_high_percent)
       select 'eq-' || n, 'cgm', '14d', false, case when n % 19 <> 0 then $1::timestamptz - ((n * 37) % 60) * interval '1 hour' end,
              very_low, very_low + ((n * 3) % 10) * 0.006, very_high, very_high + ((n * 13) % 6) * 0.05,
              ((n * 17) % 9) * 0.05 - 0.3, 0.5 + ((n * 19) % 6) * 0.1, ((n * 23) % 8) * 0.1 + 0.1,
              case when n % 29 = 0 then 0.02 else 0 end
         from v`,
      [NOW],
    );
    await database.query(
      `update glucose_period_stats set time_in_very_low_percent = null, time_in_any_low_percent = null,
              time_in_very_high_percent = null, time_in_any_high_percent = null, time_in_target_percent_delta = null,
              time_cgm_use_percent = null, time_in_target_percent = null, time_in_extreme_high_percent = null
        where user_id like 'eq-%' and substr(user_id, 4)::int % 23 = 0`,
    );
  });

  const asked: [string, TideCategoryKey[], string[], boolean][] = [
    ['the defaults, one tag', [...DEFAULT_CATEGORIES], [TAG], false],
    ['the defaults, the whole clinic', [...DEFAULT_CATEGORIES], [], false],
    ['every category backwards, the other tag', [...TIDE_CATEGORY_KEYS].reverse(), [TAG2], false],
    ['two categories, both tags', ['meetingTargets', 'timeInTargetPercent'], [TAG, TAG2], false],
    ['no category, only noData', [], [TAG], false],
    // Hundreds of patients in one category, tied in groups across the 100th (and the 50th of noData).
    ['one large category, the whole clinic', ['timeInTargetPercent'], [], false],
    ['one large category, the other tag', ['timeInTargetPercent'], [TAG2], false],
    ['the defaults, both tags, without noData', [...DEFAULT_CATEGORIES], [TAG, TAG2], true],
    [
      'three late categories first',
      ['timeInExtremeHighPercent', 'dropInTimeInTargetPercent', 'timeCGMUsePercent'],
      [TAG],
      false,
    ],
  ];

  it.each(asked)('are those of sorting every patient: %s', async (_, categories, tags, excludeNoData) => {
    const parameters = { period: '14d' as const, tags, lastDataCutoff: CUTOFF, categories, excludeNoData };
    const em = orm.em.fork();
    const { sql, params } = tideStatement(EQ_CLINIC, parameters, NOW);
    const picked = await em.getConnection().execute<Record<string, unknown>[]>(sql, params);
    const expected = await em
      .getConnection()
      .execute<Record<string, unknown>[]>(referenceSql(categories), [
        '14d',
        EQ_CLINIC,
        arrayLiteral(tags),
        CUTOFF,
        EIGHT_HOURS_AGO,
        CUTOFF,
        excludeNoData ? 0 : 50,
      ]);
    const shape = (row: Record<string, unknown>) => ({
      part: Number(row.part),
      category: row.category === null ? null : Number(row.category),
      userId: row.user_id,
      lastData: row.last_data === null ? null : new Date(row.last_data as string).toISOString(),
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(picked.map(shape)).toEqual(expected.map(shape));
  });
});
