import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { entities } from '../../entities';
import { openDatabase, type Orm } from '../../infra/database/orm';
import type { PageArgs } from '../../kernel/paging';
import { arrayLiteral, likeEscaped } from '../../kernel/sql';
import { PATIENT_SEARCH_TEXT } from './clinic-patient.entity';
import {
  checkSummaryFilter,
  checkSummarySort,
  summarySql,
  type SummaryFilter,
  type SummarySortField,
} from './patient-filters';
import { SORTS, sortOf, type PatientFilter, type PatientOrder } from './patient-list';
import { countPatientsOf, PAGE_COLUMNS, selectPages } from './patient-list.repository';
import {
  clinicCopiesOf,
  clinicCopyRevisionsOf,
  keptClinicCopies,
  type StoredClinicCopy,
} from '../glucose/summaries.repository';
import { insertClinicRow } from '../../../test/support/clinic-rows';

/**
 * A list filtered by summaries alone is counted and paged in the clinic copy's list index
 * (patient-list-indexes.ts); its answer must be the one of joining every patient's record to
 * the copy, sorting and counting them all (the statement before issue 33, kept here as the
 * reference). A clinic of 600 patients with heavy ties (statistics, names), missing statistics
 * and rows, both kinds, previous periods and a second clinic sharing some patients, asked in
 * several ways and pages.
 */
const CLINIC = 'e5e5e5e5e5e5e5e5e5e5e5e5';
const OTHER_CLINIC = 'f6f6f6f6f6f6f6f6f6f6f6f6';
const TAG = 'a7a7a7a7a7a7a7a7a7a7a7a7';

let database: TestDatabase;
let orm: Orm;

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url, entities, 2);
  for (const [id, code] of [
    [CLINIC, 'LIST-EQUI-0001'],
    [OTHER_CLINIC, 'LIST-EQUI-0002'],
  ])
    await insertClinicRow(database, { id, name: 'List Clinic', shareCode: code });
  // User ids out of the order of n; names tied in groups; some tagged, some reviewed.
  await database.query(
    `insert into clinic_patients (clinic_id, user_id, full_name, tags, permissions, reviews, last_reviewed,
                                  created_time, updated_time)
     select $1, substr(md5('list' || n), 1, 10), 'Patient ' || (n % 20), case when n % 3 = 0 then array[$3] else '{}'::text[] end,
            '{view}'::text[], '[]'::jsonb, case when n % 4 = 0 then timestamptz '2026-11-01' + (n % 5) * interval '1 day' end, now(), now()
       from generate_series(1, 600) n
     union all
     select $2, substr(md5('list' || n), 1, 10), 'Other ' || n, '{}'::text[], '{view}'::text[], '[]'::jsonb, null::timestamptz, now(), now()
       from generate_series(500, 700) n`,
    [CLINIC, OTHER_CLINIC, TAG],
  );
  // Few distinct values (ties across every page boundary), NULLs, patients without a row.
  await database.query(
    `insert into glucose_period_stats (user_id, kind, period, previous, last_data, time_in_very_low_percent,
       time_cgm_use_percent, time_in_target_percent, glucose_management_indicator, standard_deviation,
       average_glucose_mmol)
     select substr(md5('list' || n), 1, 10), kind, period, previous,
            timestamptz '2026-11-20' - ((n + m) % 5) * interval '1 day',
            ((n + m) % 4) * 0.01, case when n % 7 = 0 then null else 0.5 + ((n + m) % 6) * 0.1 end,
            case when n % 11 = 0 then null else ((n * 3 + m) % 5) * 0.2 end, (n % 3) + 6, (n + m) % 4,
            case when kind = 'bgm' then (n % 4) + 5 end
       from generate_series(1, 700) n,
            (values ('cgm', '14d', false, 0), ('cgm', '14d', true, 1), ('cgm', '7d', false, 2),
                    ('bgm', '14d', false, 3)) as periods(kind, period, previous, m)
      where n % 13 <> 0 and (kind = 'cgm' or n % 2 = 0)`,
  );
});

afterAll(async () => {
  await orm?.close();
  await database?.release();
});

/** The page statement before issue 33: every patient's record joined to the copy, a window for the count. */
async function referencePage(
  filter: PatientFilter,
  order: PatientOrder,
  { first, after, offset = 0 }: PageArgs,
  counted: boolean,
): Promise<Record<string, unknown>[]> {
  const { from, sql, params, sort } = referenceWhere(filter, order);
  const direction = order.descending ? 'desc' : 'asc';
  const compare = order.descending ? '<' : '>';
  const expression = sort?.expression ?? null;
  const keyset = !after
    ? ''
    : expression
      ? ` and (${expression}, p.user_id) ${compare} (?::${sort!.type}, ?)`
      : ` and p.user_id ${compare} ?`;
  return orm.em
    .fork()
    .getConnection()
    .execute<Record<string, unknown>[]>(
      `select page.* from unnest(?::text[]) with ordinality as c(clinic_id, position) cross join lateral (
       select ${PAGE_COLUMNS}, ${expression ? `(${expression})::text` : 'null'} as sort_value,
              ${expression ?? 'null'} as sort_key${counted ? ', count(*) over () as full_count' : ''}
         from ${from}
        where ${sql}${keyset}
        order by ${expression ? `${expression} ${direction}, ` : ''}p.user_id ${direction}
        limit ? offset ?) page
      order by c.position, ${expression ? `page.sort_key ${direction}, ` : ''}page.user_id ${direction}`,
      [arrayLiteral([CLINIC]), ...params, ...(after ?? []), first + 1, offset],
    );
}

/** selectPages' rows of patients as the reference has them: without the clinic each row names, nor an empty page's row. */
const patientRows = (rows: Record<string, unknown>[]) =>
  rows.filter((row) => row.user_id !== null).map(({ listed_clinic_id: _clinic, ...row }) => row);

async function referenceCount(filter: PatientFilter): Promise<number> {
  const { from, sql, params } = referenceWhere(filter, null);
  const [row] = await orm.em
    .fork()
    .getConnection()
    .execute<{ count: string }[]>(
      `select count(*) from (select ?::text as clinic_id) c cross join ${from} where ${sql}`,
      [CLINIC, ...params],
    );
  return Number(row!.count);
}

function referenceWhere(filter: PatientFilter, order: PatientOrder | null) {
  const conditions = ['p.clinic_id = c.clinic_id'];
  const params: unknown[] = [];
  if (filter.search) {
    conditions.push(`${PATIENT_SEARCH_TEXT} like ?`);
    params.push(`%${likeEscaped(filter.search.toLowerCase())}%`);
  }
  if (filter.tags?.length) {
    conditions.push('p.tags @> ?::text[]');
    params.push(arrayLiteral(filter.tags));
  }
  if (filter.lastReviewed) {
    conditions.push('p.last_reviewed <= ?');
    params.push(filter.lastReviewed);
  }
  const summarySort = order && !(order.field in SORTS) ? order : null;
  const summary = summarySql(
    filter.summary,
    summarySort && { field: summarySort.field as SummarySortField, source: summarySort.summary! },
  );
  return {
    from: ['clinic_patients p', ...summary.joins].join(' '),
    sql: [...conditions, ...summary.conditions].join(' and '),
    params: [...params, ...summary.params],
    sort: summarySort ? summary.sort : order && sortOf(order),
  };
}

const summary = (filter: SummaryFilter) => checkSummaryFilter(filter);
const bySummary = (field: SummarySortField, descending: boolean, kind: 'cgm' | 'bgm' = 'cgm', period = '14d') => ({
  field,
  descending,
  summary: checkSummarySort(field, { kind, period: period as '14d' }),
});
const TWO_FILTERS = summary({
  cgm: { statistics: { timeInVeryLowPercent: { gt: 0.01 }, timeCGMUsePercent: { gt: 0.7 } } },
});

const asked: [string, PatientFilter, PatientOrder][] = [
  [
    'two filters, by time in range down (the benchmark)',
    { summary: TWO_FILTERS },
    bySummary('timeInTargetPercent', true),
  ],
  ['two filters, by time in range up', { summary: TWO_FILTERS }, bySummary('timeInTargetPercent', false)],
  [
    'two filters, by another statistic the index holds',
    { summary: TWO_FILTERS },
    bySummary('glucoseManagementIndicator', true),
  ],
  [
    'a statistic the index does not hold, filtered and sorted',
    { summary: summary({ cgm: { statistics: { standardDeviation: { gte: 1 } } } }) },
    bySummary('standardDeviation', false),
  ],
  [
    'the previous period at its boundary, by last data',
    { summary: summary({ previous: true, cgm: { statistics: { timeInVeryLowPercent: { gte: 0.01 } } } }) },
    { ...bySummary('lastData', true), summary: { kind: 'cgm', period: '14d', previous: true } },
  ],
  [
    'both kinds filtered, by a CGM statistic',
    {
      summary: summary({
        cgm: { statistics: { timeInTargetPercent: { lte: 0.6 } } },
        bgm: { statistics: { averageGlucoseMmol: { gt: 5 } } },
      }),
    },
    bySummary('timeInTargetPercent', true),
  ],
  [
    'a CGM filter, by a BGM statistic no filter reads',
    { summary: TWO_FILTERS },
    bySummary('averageGlucoseMmol', true, 'bgm'),
  ],
  [
    'two filters, by a period no filter reads',
    { summary: TWO_FILTERS },
    bySummary('timeInTargetPercent', true, 'cgm', '7d'),
  ],
  ['two filters, by name', { summary: TWO_FILTERS }, { field: 'fullName', descending: true }],
  ['two filters, by account id', { summary: TWO_FILTERS }, { field: 'userId', descending: false }],
  ['two filters, by the summary’s own dates', { summary: TWO_FILTERS }, bySummary('outdatedSince', true)],
  ['two filters and a search', { summary: TWO_FILTERS, search: 'patient 1' }, bySummary('timeInTargetPercent', true)],
  ['two filters and a tag', { summary: TWO_FILTERS, tags: [TAG] }, bySummary('timeInTargetPercent', false)],
  [
    'two filters and a review date',
    { summary: TWO_FILTERS, lastReviewed: new Date('2026-11-03') },
    bySummary('timeInTargetPercent', true),
  ],
  ['no summary filter, by time in range', {}, bySummary('timeInTargetPercent', true)],
];

const PAGES: [string, PageArgs, boolean][] = [
  ['the first page, counted', { first: 50, after: null, offset: 0 }, true],
  ['a later page, counted', { first: 50, after: null, offset: 100 }, true],
  ['the last page, counted', { first: 40, after: null, offset: 90 }, true],
  ['past the end, counted', { first: 50, after: null, offset: 900 }, true],
  ['the first page, not counted', { first: 25, after: null, offset: 0 }, false],
];

describe('the patient list’s pages and counts', () => {
  it.each(asked)('are those of joining every patient: %s', async (_, filter, order) => {
    const em = orm.em.fork();
    for (const [page, args, counted] of PAGES) {
      const rows = await selectPages(em, [CLINIC], filter, order, args, counted);
      expect([page, patientRows(rows)]).toEqual([page, await referencePage(filter, order, args, counted)]);
      // Every row names its clinic, and an empty page still has one, which carries the clinic's counts.
      expect(rows.every((row) => row.listed_clinic_id === CLINIC)).toBe(true);
      if (!patientRows(rows).length) expect(rows).toHaveLength(1);
    }
    // After a key inside a run of ties, as a cursor asks.
    const first = await referencePage(filter, order, { first: 60, after: null }, false);
    const key = first[45];
    if (key) {
      const after =
        order.field === 'userId' ? [key.user_id as string] : [key.sort_value as string, key.user_id as string];
      const args = { first: 30, after };
      expect(patientRows(await selectPages(em, [CLINIC], filter, order, args, false))).toEqual(
        await referencePage(filter, order, args, false),
      );
    }
    expect(await countPatientsOf(em, [CLINIC], filter)).toEqual([await referenceCount(filter)]);
  });

  it('are asked of a clinic with hundreds of ties and matches', async () => {
    const rows = await referencePage({ summary: TWO_FILTERS }, asked[0]![2], { first: 50, after: null }, true);
    expect(Number(rows[0]!.full_count)).toBeGreaterThan(100);
    expect(new Set(rows.map((row) => row.sort_value)).size).toBeLessThan(6);
  });
});

describe('a page’s companions', () => {
  const BY_ID: PatientOrder = { field: 'userId', descending: false };
  const byKind = (copies: StoredClinicCopy[]) => [...copies].sort((a, b) => a.kind.localeCompare(b.kind));

  it('are the clinic copies of the patients who grant it something, read beside the page', async () => {
    const em = orm.em.fork();
    const page = await selectPages(em, [CLINIC], {}, BY_ID, { first: 4, after: null }, false);
    const [granting, withholding, without] = page.map((row) => row.user_id as string);
    await database.query(
      `insert into glucose_summaries (user_id, kind, last_data, first_data, last_upload_date, last_updated_date,
                                      periods, clinic_periods, clinic_offset_periods, schema_version)
       values ($1, 'cgm', '2026-11-20', '2026-11-01', '2026-11-20', now(), '{}', '{"1d":{"cur":1}}', '{"1d":{"prev":1}}', 6),
              ($1, 'bgm', '2026-11-19', null, null, now(), '{"offsetPeriods":{"1d":{"old":1}}}', null, null, 6),
              ($2, 'cgm', '2026-11-20', null, null, now(), '{}', '{"1d":{"cur":2}}', '{"1d":{"prev":2}}', 6)`,
      [granting, withholding],
    );
    await database.query(`update clinic_patients set permissions = '{}' where clinic_id = $1 and user_id = $2`, [
      CLINIC,
      withholding,
    ]);
    try {
      const rows = await selectPages(em, [CLINIC], {}, BY_ID, { first: 4, after: null }, false, {
        clinicCopies: { previous: true },
      });
      expect(patientRows(rows).map((row) => row.user_id)).toEqual(page.map((row) => row.user_id));
      const named = rows.map((row) => ({ userId: row.user_id as string, revisions: clinicCopyRevisionsOf(row) }));
      const copies = new Map((await keptClinicCopies(em, true, named)).map((user) => [user.userId, user.copies]));
      const [stored] = await clinicCopiesOf(em, [granting!], true);
      expect(byKind(copies.get(granting)!)).toEqual(byKind(stored!));
      // The previous side: the stored copy's text, or the periods it is made from where there is none.
      const sides = byKind(copies.get(granting)!).map(({ kind, text, periods }) => ({
        kind,
        text: text?.toString(),
        periods,
      }));
      expect(sides).toEqual([
        { kind: 'bgm', text: undefined, periods: { '1d': { old: 1 } } },
        { kind: 'cgm', text: '{"1d":{"prev":1}}', periods: null },
      ]);
      expect(copies.get(withholding)).toEqual([]);
      expect(copies.get(without)).toEqual([]);
    } finally {
      await database.query(`update clinic_patients set permissions = '{view}' where clinic_id = $1 and user_id = $2`, [
        CLINIC,
        withholding,
      ]);
      await database.query('delete from glucose_summaries where user_id = any($1)', [[granting, withholding]]);
    }
  });
});
