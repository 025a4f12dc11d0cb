import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { newClinic } from '../support/clinics';
import { eventually } from '../support/eventually';
import { call, graphql, type Reply } from '../support/http';
import { expectMatchesOperation } from '../support/openapi';

/**
 * The clinic patient list filtered and sorted by glucose summaries (Tidepool's `cgm.*`/`bgm.*`
 * filters, sortType, period, offsetPeriods; GraphQL's ClinicPatientFilter): real uploads, the
 * expected answers from plain arithmetic over the readings uploaded here.
 */
let app: TestApp;
let admin: TestAccount;
let clinicId: string;
let shareCode: string;

const DAY = 86_400_000;
const FIVE_MINUTES = 300_000;
/** Midnight (UTC) two days ago: every patient's readings end before it. */
const END = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
const MGDL_PER_MMOL = 18.01559;

/**
 * A day of 288 five-minute readings: `veryLow` at 50 mg/dL, `low` at 65, `high` at 200, the
 * rest at 120 (the last hour always 120, so the summary's within-hour variance quirk is moot).
 */
const day = (veryLow: number, low: number, high: number) =>
  Array.from({ length: 288 }, (_, index) =>
    index < veryLow ? 50 : index < veryLow + low ? 65 : index < veryLow + low + high ? 200 : 120,
  );

/** Readings of consecutive days, the first starting `daysBeforeEnd` days before END. */
const days = (daysBeforeEnd: number, shapes: number[][]) =>
  shapes.flatMap((values, offset) =>
    values.map((mgdl, index) => ({
      type: 'cbg',
      time: new Date(END - (daysBeforeEnd - offset) * DAY + index * FIVE_MINUTES).toISOString(),
      value: mgdl,
      units: 'mg/dL',
      sampleInterval: 300000,
    })),
  );
const repeat = <T>(count: number, make: () => T) => Array.from({ length: count }, make);

/** Four fingersticks of 100 mg/dL a day for the last 7 days. */
const fingersticks = repeat(7, () => [8, 12, 16, 20]).flatMap((hours, dayIndex) =>
  hours.map((hour) => ({
    type: 'smbg',
    time: new Date(END - (7 - dayIndex) * DAY + hour * 3_600_000).toISOString(),
    value: 100,
    units: 'mg/dL',
  })),
);

/**
 * The patients: A has 28 days (the previous 14 with no lows, the current 14 with 12 very low
 * readings a day); B 14 days with 20 lows a day and fingersticks; C 14 days with 3 very low and
 * 30 high a day; D one day, ending four days before the others, with 6 very low; E no data.
 */
const PATIENTS = {
  A: days(28, [...repeat(14, () => day(0, 0, 0)), ...repeat(14, () => day(12, 0, 0))]),
  B: [
    ...days(
      14,
      repeat(14, () => day(0, 20, 0)),
    ),
    ...fingersticks,
  ],
  C: days(
    14,
    repeat(14, () => day(3, 0, 30)),
  ),
  D: days(4, [day(6, 0, 0)]),
  E: [],
} as const;
type Name = keyof typeof PATIENTS;
const ids = {} as Record<Name, string>;
const nameOf = (id: string) => (Object.keys(ids) as Name[]).find((name) => ids[name] === id);

/** Independent expectations: shares of a period's readings. */
const EXPECTED = {
  veryLow14d: { A: 12 / 288, B: 0, C: 3 / 288 },
  target14d: { A: 276 / 288, B: 268 / 288, C: 255 / 288 },
  useMinutes14d: { A: 14 * 1440, B: 14 * 1440, C: 14 * 1440, D: 1440 },
  veryLow1d: { A: 12 / 288, B: 0, C: 3 / 288, D: 6 / 288 },
  bgmMeanB: Math.round((100 / MGDL_PER_MMOL) * 100000) / 100000,
};

async function enrol(name: Name): Promise<void> {
  const patient = await signUp(app, `patient-${name.toLowerCase()}`);
  ids[name] = patient.userid;
  const records = PATIENTS[name] as readonly object[];
  if (records.length) {
    const opened = await call(app.url, `/v1/users/${patient.userid}/datasets`, {
      token: patient.token,
      json: { dataSetType: 'continuous' },
    });
    for (let start = 0; start < records.length; start += 1000) {
      const reply = await call(app.url, `/v1/datasets/${opened.body.data.id}/data`, {
        method: 'POST',
        token: patient.token,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(records.slice(start, start + 1000)),
      });
      expect(reply.status).toBe(200);
    }
  }
  const sent = await call(app.url, `/confirm/send/invite/${patient.userid}/clinic`, {
    token: patient.token,
    json: { shareCode, permissions: { view: {} } },
  });
  const accepted = await call(app.url, `/v1/clinics/${clinicId}/invites/patients/${sent.body.key}`, {
    method: 'PUT',
    token: admin.token,
    json: { fullName: `Patient ${name}`, birthDate: '1990-01-01' },
  });
  expect(accepted.status).toBe(200);
}

beforeAll(async () => {
  app = await startTestApp();
  admin = await signUp(app, 'admin');
  ({ id: clinicId, shareCode } = await newClinic(app, admin));
  for (const name of Object.keys(PATIENTS) as Name[]) await enrol(name);
  // Five summaries: A, B (CGM and BGM), C and D.
  await eventually(
    async () => {
      const [row] = await app.database.query(
        `select count(*)::int as n from glucose_summaries
        where user_id = any($1) and outdated_since is null and periods is not null`,
        [Object.values(ids)],
      );
      return row.n === 5;
    },
    'every summary is computed',
    60_000,
  );
}, 180_000);

afterAll(async () => {
  await app?.stop();
});

const list = (query: string) => call(app.url, `/v1/clinics/${clinicId}/patients${query}`, { token: admin.token });
const listed = (reply: Reply) => {
  expect(reply.status).toBe(200);
  return (reply.body.data as { id: string }[]).map((patient) => nameOf(patient.id));
};
const matching = async (query: string) => listed(await list(query)).sort();
const gt = (value: number) => encodeURIComponent(`>${value}`);

function expectRefusal(reply: Reply, parameter: string) {
  expect(reply.status).toBe(400);
  expect(reply.body).toEqual(expect.objectContaining({ code: 400 }));
  expect(reply.body.reason).toContain(parameter);
}

describe('period statistics', () => {
  it('an upload writes every period and its previous period, leaving out what too little data would mislead', async () => {
    const rows = await app.database.query(
      `select period, previous, time_in_very_low_percent, time_cgm_use_minutes, total_records, last_data
         from glucose_period_stats where user_id = $1 and kind = 'cgm' order by period, previous`,
      [ids.D],
    );
    expect(rows.map((row: Record<string, any>) => `${row.period}:${row.previous}`)).toEqual([
      '14d:false',
      '14d:true',
      '1d:false',
      '1d:true',
      '30d:false',
      '30d:true',
      '7d:false',
      '7d:true',
    ]);
    const byKey = Object.fromEntries(rows.map((row: Record<string, any>) => [`${row.period}:${row.previous}`, row]));
    // One day of wear: 1,440 minutes are not more than 1,440, so the 14-day shares stay missing.
    expect(byKey['14d:false']).toMatchObject({
      time_in_very_low_percent: null,
      time_cgm_use_minutes: 1440,
      total_records: 288,
    });
    expect(byKey['1d:false'].time_in_very_low_percent).toBeCloseTo(EXPECTED.veryLow1d.D, 12);
    expect(new Date(byKey['1d:false'].last_data).toISOString()).toBe(
      new Date(END - 3 * DAY - FIVE_MINUTES).toISOString(),
    );
    const [previousA] = await app.database.query(
      `select time_in_very_low_percent, total_records from glucose_period_stats
        where user_id = $1 and kind = 'cgm' and period = '14d' and previous`,
      [ids.A],
    );
    expect(previousA).toEqual({ time_in_very_low_percent: 0, total_records: 14 * 288 });
    const [bgm] = await app.database.query(
      `select average_glucose_mmol, total_records, time_cgm_use_percent from glucose_period_stats
        where user_id = $1 and kind = 'bgm' and period = '7d' and not previous`,
      [ids.B],
    );
    expect(bgm).toMatchObject({ total_records: 28, time_cgm_use_percent: null });
    expect(bgm.average_glucose_mmol).toBeCloseTo(EXPECTED.bgmMeanB, 10);
  });
});

describe('REST filters', () => {
  it('filters on a statistic of the 14-day period by default, as plain arithmetic says', async () => {
    const reply = await list(`?cgm.timeInVeryLowPercent=${gt(0.01)}`);
    const want = (['A', 'B', 'C'] as const).filter((name) => EXPECTED.veryLow14d[name] > 0.01);
    expect(listed(reply).sort()).toEqual(want);
    expect(reply.body.meta).toEqual({ count: want.length, totalCount: 5 });
    await expectMatchesOperation(reply, 'clinic.v1.yaml', 'ListPatients');
    // A page past the last match still counts every match.
    const past = await list(`?cgm.timeInVeryLowPercent=${gt(0.01)}&offset=${want.length}`);
    expect({ data: past.body.data, meta: past.body.meta }).toEqual({
      data: [],
      meta: { count: want.length, totalCount: 5 },
    });
  });

  it('combines several filters with AND, on any period, with integer filters for counts', async () => {
    const target = encodeURIComponent('<0.9');
    expect(await matching(`?cgm.timeInVeryLowPercent=${gt(0.01)}&cgm.timeInTargetPercent=${target}`)).toEqual(
      (['A', 'B', 'C'] as const).filter((n) => EXPECTED.veryLow14d[n] > 0.01 && EXPECTED.target14d[n] < 0.9),
    );
    expect(await matching(`?period=1d&cgm.timeInVeryLowPercent=${gt(0.01)}`)).toEqual(
      (['A', 'B', 'C', 'D'] as const).filter((name) => EXPECTED.veryLow1d[name] > 0.01),
    );
    expect(await matching(`?cgm.timeCGMUseMinutes=${encodeURIComponent('<2000')}`)).toEqual(['D']);
    expect(await matching(`?search=patient%20c&cgm.timeInVeryLowPercent=${gt(0.01)}`)).toEqual(['C']);
    expect(await matching(`?cgm.timeCGMUseMinutes=${encodeURIComponent('>=20160')}`)).toEqual(['A', 'B', 'C']);
    expect(
      await matching(`?cgm.timeCGMUseMinutes=${encodeURIComponent('>=20160')}&cgm.timeInTargetPercent=${gt(0.95)}`),
    ).toEqual(['A']);
  });

  it('filters on deltas, the newest reading’s time and fingerstick summaries', async () => {
    // Only A had a previous 14 days with enough wear for the delta to exist.
    expect(await matching(`?cgm.timeInVeryLowPercentDelta=${gt(0.01)}`)).toEqual(['A']);
    const lastDataTo = encodeURIComponent(new Date(END - 2 * DAY).toISOString());
    expect(await matching(`?cgm.lastDataTo=${lastDataTo}`)).toEqual(['D']);
    expect(await matching(`?cgm.lastDataFrom=${lastDataTo}`)).toEqual(['A', 'B', 'C']);
    expect(await matching(`?bgm.averageGlucoseMmol=${gt(5.5)}`)).toEqual(EXPECTED.bgmMeanB > 5.5 ? ['B'] : []);
    expect(await matching(`?bgm.totalRecords=${gt(27)}&cgm.timeInLowPercent=${gt(0.05)}`)).toEqual(['B']);
  });

  it('with offsetPeriods, filters on, sorts by and shows the previous periods', async () => {
    const reply = await list(`?offsetPeriods=true&cgm.timeInVeryLowPercent=${encodeURIComponent('<0.01')}`);
    expect(listed(reply)).toEqual(['A']);
    const period = reply.body.data[0].summary.cgmStats.periods['14d'];
    expect(period.totalRecords).toBe(14 * 288);
    expect(period.timeInVeryLowPercent).toBe(0);
    const current = await list(`?cgm.timeInVeryLowPercent=${gt(0.01)}&sort=-fullName`);
    expect(current.body.data[0].summary.cgmStats.periods['14d'].timeInVeryLowPercent).toBeCloseTo(
      EXPECTED.veryLow14d.C,
      12,
    );
    expect(listed(await list('?offsetPeriods=true&sort=-totalRecords&sortType=cgm&limit=1'))).toEqual(['A']);
  });

  it('sorts by a statistic of the type asked, missing values lowest, with offset paging', async () => {
    const byVeryLow = (['A', 'B', 'C'] as const)
      .slice()
      .sort((a, b) => EXPECTED.veryLow14d[b] - EXPECTED.veryLow14d[a]);
    const descending = listed(await list('?sort=-timeInVeryLowPercent&sortType=cgm'));
    expect(descending.slice(0, 3)).toEqual(byVeryLow);
    expect(descending.slice(3).sort()).toEqual(['D', 'E']);
    const ascending = listed(await list('?sort=%2BtimeInVeryLowPercent&sortType=cgm&period=14d'));
    expect(ascending.slice(2)).toEqual([...byVeryLow].reverse());
    expect(listed(await list('?sort=-timeInVeryLowPercent&sortType=cgm&limit=2&offset=1'))).toEqual(
      byVeryLow.slice(1, 3),
    );
    const byLastData = listed(await list('?sort=-lastData&sortType=cgm'));
    expect(byLastData.slice(3)).toEqual(['D', 'E']);
    expect(listed(await list('?sort=-averageGlucoseMmol&sortType=bgm&limit=1'))).toEqual(['B']);
  });

  it('sorts by the summary’s own dates: its oldest reading, and since when it waits for an update', async () => {
    // D's readings start 4 days before the end, B's and C's 14, A's 28; E has no summary.
    const byFirstData = listed(await list('?sort=-firstData&sortType=cgm'));
    expect(byFirstData[0]).toBe('D');
    expect(byFirstData.slice(1, 3).sort()).toEqual(['B', 'C']);
    expect(byFirstData.slice(3)).toEqual(['A', 'E']);
    expect(listed(await list('?sort=%2BfirstData&sortType=cgm')).slice(0, 2)).toEqual(['E', 'A']);
    // Every summary is up to date, so none waits: all tie, and the page still holds everyone once.
    expect((await matching('?sort=-outdatedSince&sortType=cgm')).sort()).toEqual(['A', 'B', 'C', 'D', 'E']);
  });

  it('refuses malformed filters, unknown statistics and unusable sorts with a 400 naming the parameter', async () => {
    for (const [query, parameter] of [
      ['?cgm.timeInVeryLowPercent=0.04', 'cgm.timeInVeryLowPercent'],
      [`?cgm.timeInVeryLowPercent=${encodeURIComponent('=>0.04')}`, 'cgm.timeInVeryLowPercent'],
      [`?cgm.timeCGMUseMinutes=${gt(1.5)}`, 'cgm.timeCGMUseMinutes'],
      [`?cgm.timeInSpacePercent=${gt(0.1)}`, 'cgm.timeInSpacePercent'],
      [`?bgm.timeCGMUsePercent=${gt(0.1)}`, 'bgm.timeCGMUsePercent'],
      [`?cgm.timeInLowPercent=${gt(0.1)}&cgm.timeInLowPercent=${gt(0.2)}`, 'cgm.timeInLowPercent'],
      ['?cgm.lastDataFrom=yesterday', 'cgm.lastDataFrom'],
      ['?period=5d', 'period'],
      ['?period=toString', 'period'],
      ['?period=__proto__', 'period'],
      ['?sortType=pump', 'sortType'],
      ['?offsetPeriods=maybe', 'offsetPeriods'],
      ['?sort=-timeInVeryLowPercent', 'sort'],
      ['?sort=-timeCGMUsePercent&sortType=bgm', 'sort'],
      ['?sort=-timeInSpacePercent&sortType=cgm', 'sort'],
    ])
      expectRefusal(await list(query!), parameter!);
  });
});

describe('GraphQL filters', () => {
  const QUERY = `query ($id: ID!, $filter: ClinicPatientFilter, $orderBy: ClinicPatientOrder, $after: String) {
    clinic(id: $id) { patients(filter: $filter, orderBy: $orderBy, first: 2, after: $after) {
      totalCount nodes { userId } pageInfo { hasNextPage endCursor } } } }`;
  const ask = (variables: Record<string, unknown>) =>
    graphql(app.url, QUERY, { id: clinicId, ...variables }, admin.token);
  const names = (reply: Reply) =>
    (reply.body.data.clinic.patients.nodes as { userId: string }[]).map((node) => nameOf(node.userId));

  it('takes bounds as fields, ranges included, and the same sorts', async () => {
    const both = await ask({
      filter: { cgm: { timeInVeryLowPercent: { gt: 0.01 }, timeInTargetPercent: { lt: 0.9 } } },
    });
    expect(names(both)).toEqual(['C']);
    expect(both.body.data.clinic.patients.totalCount).toBe(1);
    const range = await ask({ filter: { cgm: { timeInVeryLowPercent: { gte: 0.001, lte: 0.02 } } } });
    expect(names(range)).toEqual(['C']);
    const previous = await ask({ filter: { usePreviousPeriod: true, cgm: { totalRecords: { gte: 1 } } } });
    expect(names(previous)).toEqual(['A']);

    const orderBy = { field: 'TIME_IN_VERY_LOW_PERCENT', direction: 'DESC', summary: 'CGM' };
    const first = await ask({ orderBy });
    expect(names(first)).toEqual(['A', 'C']);
    const next = await ask({ orderBy, after: first.body.data.clinic.patients.pageInfo.endCursor });
    expect(names(next)[0]).toBe('B');
    const oneDay = await ask({ orderBy: { ...orderBy, period: 'ONE_DAY' } });
    expect(names(oneDay)).toEqual(['A', 'D']);
  });

  it('walks every page of a summary sort by keyset cursors, dates and missing values included', async () => {
    const walk = async (field: string) => {
      const seen: (string | undefined)[] = [];
      let after: string | null = null;
      do {
        const page: Reply = await ask({ orderBy: { field, direction: 'DESC', summary: 'CGM' }, after });
        seen.push(...names(page));
        const { hasNextPage, endCursor } = page.body.data.clinic.patients.pageInfo;
        after = hasNextPage ? endCursor : null;
      } while (after);
      return seen;
    };
    const byLastData = await walk('LAST_DATA');
    expect(byLastData.slice(0, 3).sort()).toEqual(['A', 'B', 'C']);
    expect(byLastData.slice(3)).toEqual(['D', 'E']);
    const byFirstData = await walk('FIRST_DATA');
    expect([byFirstData[0], ...byFirstData.slice(3)]).toEqual(['D', 'A', 'E']);
    const byVeryLow = await walk('TIME_IN_VERY_LOW_PERCENT');
    expect(byVeryLow.slice(0, 3)).toEqual(['A', 'C', 'B']);
    expect(byVeryLow.slice(3).sort()).toEqual(['D', 'E']);
  });

  it('refuses a statistic sort without its summary, and cursors of another list', async () => {
    const refused = await ask({ orderBy: { field: 'TIME_IN_VERY_LOW_PERCENT', direction: 'DESC' } });
    expect(refused.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const orderBy = { field: 'TIME_IN_VERY_LOW_PERCENT', direction: 'DESC', summary: 'CGM' };
    const first = await ask({ orderBy });
    const other = await ask({
      orderBy: { ...orderBy, period: 'SEVEN_DAYS' },
      after: first.body.data.clinic.patients.pageInfo.endCursor,
    });
    expect(other.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
