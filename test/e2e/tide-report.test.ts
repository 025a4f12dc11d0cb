import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { addClinician, clinicWithStaff, newClinic } from '../support/clinics';
import { eventually } from '../support/eventually';
import { call, graphql, type Reply } from '../support/http';
import { expectMatchesOperation } from '../support/openapi';

/**
 * The TIDE report (Tidepool's GET /v1/clinics/{clinicId}/tide_report) over REST and GraphQL:
 * patients sitting on each category boundary with statistics written straight into
 * glucose_period_stats, checked against a table written out here; the shared limit of 100, the
 * noData limit of 50, parameters, access; then a small clinic whose patients upload real readings,
 * checked against plain arithmetic over those readings.
 */
let app: TestApp;
let server: string;
let staff: Awaited<ReturnType<typeof clinicWithStaff>>;
let otherClinician: TestAccount;
let clinicId: string;
let tagA: string;
let tagB: string;

const HOUR = 3_600_000;
const NOW = Date.now();
/** Data at or after this time counts for the categories. */
const CUTOFF = new Date(Math.floor((NOW - 48 * HOUR) / 1000) * 1000).toISOString();
const RECENT = new Date(NOW - 2 * HOUR).toISOString();

type Stats = Partial<Record<string, number | null>>;

/** Meets the targets: 80% in range, 90% worn, no lows or highs beyond the limits. */
const HEALTHY: Stats = {
  time_in_target_percent: 0.8,
  time_cgm_use_percent: 0.9,
  time_cgm_use_minutes: 9072,
  time_in_very_low_percent: 0,
  time_in_low_percent: 0.01,
  time_in_any_low_percent: 0.01,
  time_in_high_percent: 0.1,
  time_in_very_high_percent: 0,
  time_in_extreme_high_percent: 0,
  time_in_any_high_percent: 0.1,
  time_in_target_percent_delta: 0,
  average_glucose_mmol: 7.2,
  glucose_management_indicator: 6.5,
};

/** Every statistic a clinic copy may leave out, left out. */
const NONE_OF_THEM: Stats = Object.fromEntries(Object.keys(HEALTHY).map((name) => [name, null]));

interface Seed {
  name: string;
  tags?: 'AB' | 'A';
  /** Null: no statistics row at all. */
  stats: Stats | null;
  lastData?: string;
  dexcom?: 'connected' | 'disconnected';
}

/** The boundary patients: each on one edge of a category. */
const SEEDS: Seed[] = [
  { name: 'Vic Five', stats: { ...HEALTHY, time_in_very_low_percent: 0.05, time_in_any_low_percent: 0.06 } },
  { name: 'alice Tie', stats: { ...HEALTHY, time_in_very_low_percent: 0.02, time_in_any_low_percent: 0.03 } },
  { name: 'Bob Tie', stats: { ...HEALTHY, time_in_very_low_percent: 0.02, time_in_any_low_percent: 0.03 } },
  { name: 'Cutoff Carl', stats: { ...HEALTHY, time_in_very_low_percent: 0.03 }, lastData: CUTOFF },
  { name: 'Very Low Edge', stats: { ...HEALTHY, time_in_very_low_percent: 0.01, time_in_target_percent: 0.75 } },
  { name: 'Al Above', stats: { ...HEALTHY, time_in_any_low_percent: 0.045 } },
  { name: 'Low Edge', stats: { ...HEALTHY, time_in_any_low_percent: 0.04 } },
  { name: 'Vi High', stats: { ...HEALTHY, time_in_very_high_percent: 0.06, time_in_any_high_percent: 0.2 } },
  {
    name: 'Very High Edge',
    stats: { ...HEALTHY, time_in_very_high_percent: 0.05, time_in_any_high_percent: 0.2, time_in_target_percent: 0.72 },
  },
  { name: 'Ann High', stats: { ...HEALTHY, time_in_any_high_percent: 0.3 } },
  { name: 'Any High Edge', stats: { ...HEALTHY, time_in_any_high_percent: 0.25, time_in_target_percent: 0.7 } },
  { name: 'Dr Drop', stats: { ...HEALTHY, time_in_target_percent_delta: -0.2 } },
  { name: 'Drop Edge', stats: { ...HEALTHY, time_in_target_percent_delta: -0.15, time_in_target_percent: 0.9 } },
  { name: 'Use Edge', stats: { ...HEALTHY, time_cgm_use_percent: 0.7, time_in_target_percent: 0.85 } },
  {
    name: 'Sparse Sam',
    stats: { ...NONE_OF_THEM, time_cgm_use_percent: 0.5, time_cgm_use_minutes: 5040, average_glucose_mmol: 8 },
  },
  { name: 'Healthy Hana', stats: HEALTHY },
  { name: 'Tia Target', stats: { ...HEALTHY, time_in_target_percent: 0.69 } },
  { name: 'Xena Extreme', stats: { ...HEALTHY, time_in_extreme_high_percent: 0.01 } },
  { name: 'Missing Mo', stats: NONE_OF_THEM },
  { name: 'Early Ed', stats: { ...HEALTHY, time_in_very_low_percent: 0.5 }, lastData: shift(CUTOFF, -1000) },
  { name: 'No Stats Nina', stats: null },
  {
    name: 'Dex Nine',
    stats: { ...HEALTHY, time_in_target_percent: 0.95 },
    lastData: new Date(NOW - 9 * HOUR).toISOString(),
    dexcom: 'disconnected',
  },
  {
    name: 'Dex Seven',
    stats: { ...HEALTHY, time_in_target_percent: 0.705 },
    lastData: new Date(NOW - 7 * HOUR).toISOString(),
    dexcom: 'disconnected',
  },
  {
    name: 'Dex Connected',
    stats: { ...HEALTHY, time_in_target_percent: 0.71 },
    lastData: new Date(NOW - 9 * HOUR).toISOString(),
    dexcom: 'connected',
  },
  { name: 'Only A Otto', tags: 'A', stats: { ...HEALTHY, time_in_very_low_percent: 0.9 } },
];

/** The default report for tags A and B, written out: each category's patients in order. */
const EXPECTED: Record<string, string[]> = {
  timeInVeryLowPercent: ['Vic Five', 'Cutoff Carl', 'alice Tie', 'Bob Tie'],
  timeInAnyLowPercent: ['Al Above'],
  timeInVeryHighPercent: ['Vi High'],
  timeInAnyHighPercent: ['Ann High'],
  dropInTimeInTargetPercent: ['Dr Drop'],
  timeCGMUsePercent: ['Sparse Sam'],
  meetingTargets: [
    'Dex Nine',
    'Drop Edge',
    'Use Edge',
    'Healthy Hana',
    'Low Edge',
    'Very Low Edge',
    'Very High Edge',
    'Dex Connected',
    'Dex Seven',
    'Any High Edge',
  ],
  noData: ['No Stats Nina', 'Early Ed', 'Dex Nine'],
};

const userIds = new Map<string, string>();
const names = new Map<string, string>();

function shift(iso: string, ms: number): string {
  return new Date(new Date(iso).getTime() + ms).toISOString();
}

const as = (token: string | undefined, path: string, init: Parameters<typeof call>[2] = {}) =>
  call(app.url, path, { token, ...init });

async function insertStats(userId: string, stats: Stats, lastData: string, period = '7d') {
  const columns = Object.keys(stats);
  await app.database.query(
    `insert into glucose_period_stats (user_id, kind, period, previous, last_data, ${columns.join(', ')})
     values ($1, 'cgm', $2, false, $3, ${columns.map((_, index) => `$${index + 4}`).join(', ')})`,
    [userId, period, lastData, ...columns.map((column) => stats[column])],
  );
}

const report = (query: string, token = staff.member.token, clinic = clinicId) =>
  as(token, `/v1/clinics/${clinic}/tide_report?${query}`);

const defaultQuery = (extra = '') =>
  `period=7d&tags=${tagA},${tagB}&lastDataCutoff=${encodeURIComponent(CUTOFF)}${extra}`;

/** Each result key's patients by name, in order. */
function byName(reply: Reply): Record<string, string[]> {
  expect(reply.status).toBe(200);
  const results = reply.body.results as Record<string, { patient: { id: string } }[]>;
  return Object.fromEntries(
    Object.entries(results).map(([key, entries]) => [key, entries.map((entry) => names.get(entry.patient.id)!)]),
  );
}

/**
 * The reply against Tidepool's TideReport schema. One known difference, Tidepool's own: its
 * service always writes the filter `dropInTimeInTargetPercent` as `<-0.15`, which the pattern of
 * its OpenAPI file (`^(>=|>|<=|<)\d\.\d\d?$`, no minus sign) does not allow; the wire keeps
 * the service's string, so that one value is checked exactly and left out of the schema check.
 */
async function expectTideShape(reply: Reply) {
  expect(reply.body.config.filters.dropInTimeInTargetPercent).toBe('<-0.15');
  const { dropInTimeInTargetPercent: _drop, ...filters } = reply.body.config.filters;
  const body = { ...reply.body, config: { ...reply.body.config, filters } };
  await expectMatchesOperation({ ...reply, body, text: JSON.stringify(body) }, 'clinic.v1.yaml', 'TideReport');
}

beforeAll(async () => {
  app = await startTestApp();
  server = await serverToken(app);
  staff = await clinicWithStaff(app, server, { name: 'TIDE Clinic', preferredBgUnits: 'mg/dL' });
  clinicId = staff.clinicId;
  otherClinician = await signUp(app, 'other-clinician');
  await newClinic(app, otherClinician);
  const tag = async (name: string) =>
    (await as(staff.member.token, `/v1/clinics/${clinicId}/patient_tags`, { json: { name } })).body.id as string;
  tagA = await tag('Pump');
  tagB = await tag('Teen');
  for (const seed of SEEDS) {
    const reply = await as(staff.member.token, `/v1/clinics/${clinicId}/patients`, {
      json: { fullName: seed.name, birthDate: '2010-01-01', tags: seed.tags === 'A' ? [tagA] : [tagA, tagB] },
    });
    expect(reply.status).toBe(200);
    userIds.set(seed.name, reply.body.id);
    names.set(reply.body.id, seed.name);
    if (seed.stats) await insertStats(reply.body.id, seed.stats, seed.lastData ?? RECENT);
    if (seed.dexcom) {
      const sources = await as(server, `/v1/patients/${reply.body.id}/data_sources`, {
        method: 'PUT',
        json: [
          {
            providerName: 'dexcom',
            state: seed.dexcom,
            dataSourceId: 'd'.repeat(24),
            modifiedTime: '2026-11-01T10:00:00Z',
          },
        ],
      });
      expect(sources.status).toBe(200);
    }
  }
});
afterAll(async () => {
  await app?.stop();
});

describe('TIDE report categories', () => {
  it('puts each boundary patient where the table says, in order, and matches the OpenAPI shape', async () => {
    const reply = await report(defaultQuery());
    await expectTideShape(reply);
    expect(byName(reply)).toEqual(EXPECTED);
    expect(Object.keys(reply.body.results)).toEqual(Object.keys(EXPECTED));
  });

  it('answers the config with the fixed thresholds and filters', async () => {
    const reply = await report(defaultQuery());
    expect(reply.body.config).toEqual({
      schemaVersion: 2,
      clinicId,
      period: '7d',
      lastDataCutoff: CUTOFF,
      highGlucoseThreshold: 10,
      veryHighGlucoseThreshold: 13.9,
      extremeHighGlucoseThreshold: 19.4,
      lowGlucoseThreshold: 3.9,
      veryLowGlucoseThreshold: 3,
      tags: [tagA, tagB],
      filters: {
        timeInVeryLowPercent: '>0.01',
        timeInAnyLowPercent: '>0.04',
        dropInTimeInTargetPercent: '<-0.15',
        timeInTargetPercent: '<0.7',
        timeCGMUsePercent: '<0.7',
      },
    });
  });

  it('shows an entry’s patient and statistics, leaving absent statistics out', async () => {
    const reply = await report(defaultQuery());
    const [vic] = reply.body.results.timeInVeryLowPercent;
    expect(vic).toEqual({
      patient: {
        id: userIds.get('Vic Five'),
        fullName: 'Vic Five',
        tags: [tagA, tagB],
        reviews: [],
        dataSources: null,
      },
      lastData: RECENT,
      averageGlucoseMmol: 7.2,
      glucoseManagementIndicator: 6.5,
      timeCGMUseMinutes: 9072,
      timeCGMUsePercent: 0.9,
      timeInVeryLowPercent: 0.05,
      timeInLowPercent: 0.01,
      timeInAnyLowPercent: 0.06,
      timeInTargetPercent: 0.8,
      timeInTargetPercentDelta: 0,
      timeInHighPercent: 0.1,
      timeInVeryHighPercent: 0,
      timeInExtremeHighPercent: 0,
      timeInAnyHighPercent: 0.1,
    });
    const [sam] = reply.body.results.timeCGMUsePercent;
    expect(Object.keys(sam).sort()).toEqual(
      ['patient', 'lastData', 'averageGlucoseMmol', 'timeCGMUseMinutes', 'timeCGMUsePercent'].sort(),
    );
    const [nina] = reply.body.results.noData;
    expect(Object.keys(nina)).toEqual(['patient']);
    const dex = reply.body.results.noData[2];
    expect(dex.patient.dataSources).toEqual([
      {
        providerName: 'dexcom',
        state: 'disconnected',
        dataSourceId: 'd'.repeat(24),
        modifiedTime: '2026-11-01T10:00:00.000Z',
      },
    ]);
  });

  it('returns opt-in categories only when asked, in the order asked, ignoring unknown and repeated names', async () => {
    const reply = await report(
      defaultQuery('&categories=timeInExtremeHighPercent,bogus,timeInTargetPercent,timeInExtremeHighPercent'),
    );
    expect(byName(reply)).toEqual({
      timeInExtremeHighPercent: ['Xena Extreme'],
      timeInTargetPercent: ['Tia Target'],
      noData: EXPECTED.noData,
    });
    expect(byName(await report(defaultQuery('&categories=bogus&excludeNoData=true')))).toEqual({});
    expect(byName(await report(defaultQuery('&categories=')))).toEqual(EXPECTED);
  });

  it('leaves noData out with excludeNoData', async () => {
    const { noData, ...clinical } = EXPECTED;
    expect(noData).toHaveLength(3);
    expect(byName(await report(defaultQuery('&excludeNoData=true')))).toEqual(clinical);
    expect(byName(await report(defaultQuery('&excludeNoData=false')))).toEqual(EXPECTED);
  });

  it('needs every tag asked: a patient with only one of them is out', async () => {
    const onlyA = byName(await report(`period=7d&tags=${tagA}&lastDataCutoff=${encodeURIComponent(CUTOFF)}`));
    expect(onlyA.timeInVeryLowPercent).toEqual(['Only A Otto', ...EXPECTED.timeInVeryLowPercent]);
    const unknownTag = byName(
      await report(`period=7d&tags=${'f'.repeat(24)}&lastDataCutoff=${encodeURIComponent(CUTOFF)}`),
    );
    expect(Object.values(unknownTag).every((list) => list.length === 0)).toBe(true);
  });

  it('reads the period asked', async () => {
    const reply = await report(defaultQuery().replace('period=7d', 'period=14d'));
    // Nobody has 14-day statistics: all are out of the categories, and only patients without data are noData.
    expect(byName(reply)).toEqual({
      ...Object.fromEntries(Object.keys(EXPECTED).map((key) => [key, []])),
      noData: expect.any(Array),
    });
    expect(byName(reply).noData).toHaveLength(SEEDS.filter((seed) => seed.tags !== 'A').length);
  });
});

describe('TIDE report limits', () => {
  let bulkClinic: string;
  let bulkTag: string;

  beforeAll(async () => {
    bulkClinic = (await newClinic(app, staff.admin)).id;
    bulkTag = (await as(staff.admin.token, `/v1/clinics/${bulkClinic}/patient_tags`, { json: { name: 'All' } })).body
      .id;
    // 60 very low, 70 high, 60 without data, straight into the tables.
    await app.database.query(
      `insert into clinic_patients (clinic_id, user_id, full_name, tags, permissions, reviews, created_time, updated_time)
       select $1, lpad(to_hex(n), 10, '0'), 'Bulk ' || lpad(n::text, 3, '0'), array[$2], '{view}', '[]', now(), now()
         from generate_series(1, 190) n`,
      [bulkClinic, bulkTag],
    );
    await app.database.query(
      `insert into glucose_period_stats (user_id, kind, period, previous, last_data, time_in_very_low_percent,
                                         time_in_any_high_percent)
       select lpad(to_hex(n), 10, '0'), 'cgm', '7d', false, $1,
              case when n <= 60 then 0.02 + n / 10000.0 else 0 end, case when n > 60 then 0.3 else 0 end
         from generate_series(1, 130) n`,
      [RECENT],
    );
  });

  const bulk = (extra = '') =>
    report(
      `period=7d&tags=${bulkTag}&lastDataCutoff=${encodeURIComponent(CUTOFF)}${extra}`,
      staff.admin.token,
      bulkClinic,
    );
  const counts = (reply: Reply) =>
    Object.fromEntries(Object.entries(reply.body.results as Record<string, unknown[]>).map(([k, v]) => [k, v.length]));

  it('shares 100 patients across categories and stops at the category that took the last', async () => {
    const reply = await bulk();
    await expectTideShape(reply);
    expect(counts(reply)).toEqual({
      timeInVeryLowPercent: 60,
      timeInAnyLowPercent: 0,
      timeInVeryHighPercent: 0,
      timeInAnyHighPercent: 40,
      noData: 50,
    });
    // Most very low first; equal high values by name.
    expect(reply.body.results.timeInVeryLowPercent[0].patient.fullName).toBe('Bulk 060');
    expect(reply.body.results.timeInAnyHighPercent.map((entry: any) => entry.patient.fullName)).toEqual(
      Array.from({ length: 40 }, (_, index) => `Bulk ${String(61 + index).padStart(3, '0')}`),
    );
    expect(reply.body.results.noData[0].patient.fullName).toBe('Bulk 131');
  });

  it('fills the 100 in the order of the categories asked', async () => {
    const reply = await bulk('&categories=timeInAnyHighPercent,timeInVeryLowPercent,meetingTargets&excludeNoData=true');
    expect(counts(reply)).toEqual({ timeInAnyHighPercent: 70, timeInVeryLowPercent: 30 });
  });
});

describe('TIDE report parameters and access', () => {
  it('answers 400 naming a missing or malformed parameter', async () => {
    const cutoff = encodeURIComponent(CUTOFF);
    const cases: [string, string][] = [
      [`tags=${tagA}&lastDataCutoff=${cutoff}`, 'period'],
      [`period=2d&tags=${tagA}&lastDataCutoff=${cutoff}`, 'period'],
      [`period=7d&lastDataCutoff=${cutoff}`, 'tags'],
      [`period=7d&tags=zzz&lastDataCutoff=${cutoff}`, 'tags'],
      [`period=7d&tags=${tagA}`, 'lastDataCutoff'],
      [`period=7d&tags=${tagA}&lastDataCutoff=yesterday`, 'lastDataCutoff'],
      [`period=7d&tags=${tagA}&lastDataCutoff=${cutoff}&excludeNoData=maybe`, 'excludeNoData'],
    ];
    for (const [query, parameter] of cases) {
      const reply = await report(query);
      expect([query, reply.status]).toEqual([query, 400]);
      expect(reply.body.reason).toContain(parameter);
    }
  });

  it('lets the clinic’s members and admins and servers read it, nobody else', async () => {
    const query = defaultQuery();
    expect((await report(query, staff.admin.token)).status).toBe(200);
    expect((await report(query, server)).status).toBe(200);
    expect((await report(query, staff.prescriber.token)).status).toBe(403);
    expect((await report(query, staff.outsider.token)).status).toBe(403);
    expect((await report(query, otherClinician.token)).status).toBe(403);
    expect((await report(query, '')).status).toBe(401);
    expect((await report(query, server, 'a'.repeat(24))).status).toBe(404);
  });

  it('is a field of the clinic in GraphQL, linked to the patients', async () => {
    const reply = await graphql(
      app.url,
      `
        query ($id: ID!, $tags: [ID!]!, $cutoff: DateTime!) {
          clinic(id: $id) {
            tideReport(period: SEVEN_DAYS, tagIds: $tags, lastDataCutoff: $cutoff) {
              config {
                schemaVersion
                period
                tagIds
                categories
                thresholds {
                  lowGlucoseMmol
                }
              }
              categories {
                category
                entries {
                  patient {
                    userId
                    fullName
                    dataSources {
                      providerName
                      state
                    }
                  }
                  timeInVeryLowPercent
                }
              }
              noData {
                patient {
                  fullName
                }
                lastData
              }
            }
          }
        }
      `,
      { id: clinicId, tags: [tagA, tagB], cutoff: CUTOFF },
      staff.member.token,
    );
    expect(reply.body.errors).toBeUndefined();
    const tide = reply.body.data.clinic.tideReport;
    expect(tide.config).toMatchObject({ schemaVersion: 2, period: 'SEVEN_DAYS', tagIds: [tagA, tagB] });
    expect(tide.config.categories[0]).toBe('TIME_IN_VERY_LOW_PERCENT');
    expect(tide.categories[0].entries.map((entry: any) => entry.patient.fullName)).toEqual(
      EXPECTED.timeInVeryLowPercent,
    );
    const meeting = tide.categories.find((category: any) => category.category === 'MEETING_TARGETS');
    expect(meeting.entries[0].patient.dataSources).toEqual([{ providerName: 'dexcom', state: 'DISCONNECTED' }]);
    expect(tide.noData.map((entry: any) => entry.patient.fullName)).toEqual(EXPECTED.noData);
    expect(tide.noData[0].lastData).toBeNull();

    const refused = await graphql(
      app.url,
      `query ($id: ID!) { clinic(id: $id) { tideReport(period: SEVEN_DAYS, tagIds: ["x"], lastDataCutoff: "${CUTOFF}") { noData { lastData } } } }`,
      { id: clinicId },
      staff.member.token,
    );
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'tagIds' });
  });

  it('reports the whole clinic when no tag is given (REST keeps requiring one)', async () => {
    const query = `query ($id: ID!, $tags: [ID!]) { clinic(id: $id) {
      tideReport(period: SEVEN_DAYS, tagIds: $tags, lastDataCutoff: "${CUTOFF}") {
        categories { category entries { patient { fullName } } } noData { patient { fullName } } } } }`;
    const tide = async (tags?: string[] | null) => {
      const reply = await graphql(app.url, query, { id: clinicId, tags }, staff.member.token);
      expect(reply.body.errors).toBeUndefined();
      return reply.body.data.clinic.tideReport;
    };
    const wholeClinic = await tide();
    // Every patient of this clinic carries tag A, and some only A.
    expect(wholeClinic).toEqual(await tide([tagA]));
    expect(await tide([])).toEqual(wholeClinic);
    expect(await tide(null)).toEqual(wholeClinic);
    const names = wholeClinic.categories.flatMap((category: any) =>
      category.entries.map((entry: any) => entry.patient.fullName),
    );
    expect(names).toContain('Only A Otto');
  });
});

describe('patient data sources', () => {
  it('are reported by servers only, checked, and shown on the patient', async () => {
    const userId = userIds.get('Healthy Hana')!;
    const put = (token: string | undefined, json: unknown) =>
      as(token, `/v1/patients/${userId}/data_sources`, { method: 'PUT', json });
    const source = { providerName: 'abbott', state: 'pendingReconnect', expirationTime: '2027-01-01T00:00:00Z' };
    expect((await put(staff.admin.token, [source])).status).toBe(403);
    expect((await put(undefined, [source])).status).toBe(401);
    const bad = await put(server, [{ ...source, state: 'sleepy' }]);
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toContain('state');
    expect((await put(server, { source })).status).toBe(400);
    expect((await as(server, `/v1/patients/${'9'.repeat(10)}/data_sources`, { method: 'PUT', json: [] })).status).toBe(
      404,
    );
    expect((await put(server, [source])).status).toBe(200);
    const patient = await as(staff.member.token, `/v1/clinics/${clinicId}/patients/${userId}`);
    expect(patient.body.dataSources).toEqual([{ ...source, expirationTime: '2027-01-01T00:00:00.000Z' }]);
    await expectMatchesOperation(patient, 'clinic.v1.yaml', 'GetPatient');
    // The list reads each page's sources with the page: the same as the patient's own answer.
    const list = await as(staff.member.token, `/v1/clinics/${clinicId}/patients?limit=1000`);
    const listed = list.body.data.find((entry: { id: string }) => entry.id === userId);
    expect(listed.dataSources).toEqual(patient.body.dataSources);
    const withSources = list.body.data.filter((entry: { dataSources: unknown }) => entry.dataSources !== null);
    expect(withSources.map((entry: { fullName: string }) => entry.fullName).sort()).toEqual([
      'Dex Connected',
      'Dex Nine',
      'Dex Seven',
      'Healthy Hana',
    ]);
    const dex = await as(staff.member.token, `/v1/users/${userIds.get('Dex Nine')}/data_sources`);
    expect(dex.body).toEqual([{ id: 'd'.repeat(24), providerName: 'dexcom', state: 'disconnected' }]);
    expect((await as(staff.member.token, `/v1/users/${userId}/data_sources`)).body).toEqual([]);
    expect((await put(server, [])).status).toBe(200);
    expect((await as(staff.member.token, `/v1/clinics/${clinicId}/patients/${userId}`)).body.dataSources).toEqual([]);
  });
});

/**
 * Real uploads: five patients of a small clinic upload CGM readings (5 minutes each), the service
 * summarises them, and the 1-day TIDE report must match what plain arithmetic over the same
 * readings says.
 */
describe('TIDE report from uploaded readings', () => {
  const FIVE_MINUTES = 5 * 60_000;
  const MGDL_PER_MMOL = 18.01559;
  const toMmol = (mgdl: number) => Math.round((mgdl / MGDL_PER_MMOL) * 100000) / 100000;
  /** The readings' first hour: the day before the current hour, so the newest reading is about an hour old. */
  const START = Math.floor(NOW / HOUR) * HOUR - 24 * HOUR;

  /** A day of 288 readings: `share` of them (the first ones of the day) at `odd` mg/dL, the rest at 120. */
  const day = (odd: number, share: number) =>
    Array.from({ length: 288 }, (_, index) => (index < share * 288 ? odd : 120));

  const PATIENTS: { name: string; previous?: number[]; current: number[] }[] = [
    { name: 'Real Low', current: day(50, 0.1) },
    { name: 'Real High', current: day(200, 0.3) },
    { name: 'Real Good', current: day(120, 0) },
    { name: 'Real Sparse', current: day(120, 0).slice(0, 100) },
    { name: 'Real Drop', previous: day(120, 0), current: day(200, 0.2) },
  ];

  /** Plain arithmetic over one day of 5-minute readings, then Tidepool's rules written out. */
  function expectedOf(current: number[], previous: number[] | undefined) {
    const mmol = current.map(toMmol);
    const share = (test: (value: number) => boolean) => mmol.filter(test).length / mmol.length;
    const use = (current.length * 5) / 1440;
    const tir = share((v) => v >= 3.9 && v <= 10.0);
    const previousTir = previous
      ? previous.map(toMmol).filter((v) => v >= 3.9 && v <= 10.0).length / previous.length
      : 0;
    const stats = {
      timeCGMUsePercent: use,
      veryLow: share((v) => v < 3.0),
      anyLow: share((v) => v < 3.9),
      veryHigh: share((v) => v > 13.9),
      anyHigh: share((v) => v > 10.0),
      tir,
      delta: previous ? tir - previousTir : undefined,
    };
    // The 1-day percentages only exist above 70% wear (Tidepool's clinic copy).
    const shown = use > 0.7;
    let category = 'none';
    if (shown && stats.veryLow > 0.01) category = 'timeInVeryLowPercent';
    else if (shown && stats.anyLow > 0.04) category = 'timeInAnyLowPercent';
    else if (shown && stats.veryHigh > 0.05) category = 'timeInVeryHighPercent';
    else if (shown && stats.anyHigh > 0.25) category = 'timeInAnyHighPercent';
    else if (shown && stats.delta !== undefined && stats.delta < -0.15) category = 'dropInTimeInTargetPercent';
    else if (use < 0.7) category = 'timeCGMUsePercent';
    else if (shown && tir >= 0.7 && use >= 0.7) category = 'meetingTargets';
    return { category, stats, shown };
  }

  it('sorts the uploaders as arithmetic over their readings says', async () => {
    const clinic = await newClinic(app, staff.admin);
    await addClinician(app, server, clinic.id, staff.member, ['CLINIC_MEMBER']);
    const tag = (await as(staff.member.token, `/v1/clinics/${clinic.id}/patient_tags`, { json: { name: 'Real' } })).body
      .id as string;
    const ids = new Map<string, string>();
    const lastData = new Map<string, string>();
    for (const patient of PATIENTS) {
      const created = await as(staff.member.token, `/v1/clinics/${clinic.id}/patients`, {
        json: { fullName: patient.name, birthDate: '2000-02-02', tags: [tag] },
      });
      expect(created.status).toBe(200);
      const userId = created.body.id as string;
      ids.set(patient.name, userId);
      const opened = await as(staff.member.token, `/v1/users/${userId}/datasets`, {
        json: { dataSetType: 'continuous' },
      });
      expect(opened.status).toBe(201);
      const readings = [
        ...(patient.previous ?? []).map((mgdl, index) => [START - 24 * HOUR + index * FIVE_MINUTES, mgdl]),
        ...patient.current.map((mgdl, index) => [START + index * FIVE_MINUTES, mgdl]),
      ];
      const records = readings.map(([time, mgdl]) => ({
        type: 'cbg',
        time: new Date(time).toISOString(),
        value: mgdl,
        units: 'mg/dL',
        sampleInterval: 300000,
      }));
      lastData.set(userId, records[records.length - 1].time);
      const uploaded = await as(staff.member.token, `/v1/datasets/${opened.body.data.id}/data`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(records),
      });
      expect(uploaded.status).toBe(200);
    }
    await eventually(
      async () => {
        const rows = await app.database.query(
          `select user_id, last_data from glucose_summaries where kind = 'cgm' and outdated_since is null and user_id = any($1)`,
          [[...ids.values()]],
        );
        return (
          rows.length === ids.size &&
          rows.every((row) => new Date(row.last_data).toISOString() === lastData.get(row.user_id))
        );
      },
      'every uploader’s summary is up to date',
      30_000,
    );

    const reply = await as(
      staff.member.token,
      `/v1/clinics/${clinic.id}/tide_report?period=1d&tags=${tag}&lastDataCutoff=${encodeURIComponent(CUTOFF)}`,
    );
    expect(reply.status).toBe(200);
    await expectTideShape(reply);
    const results = reply.body.results as Record<string, any[]>;
    const found = new Map<string, { category: string; entry: any }>();
    for (const [category, entries] of Object.entries(results))
      if (category !== 'noData') for (const entry of entries) found.set(entry.patient.fullName, { category, entry });
    expect(results.noData).toEqual([]);

    for (const patient of PATIENTS) {
      const want = expectedOf(patient.current, patient.previous);
      const got = found.get(patient.name);
      expect([patient.name, got?.category ?? 'none']).toEqual([patient.name, want.category]);
      const entry = got!.entry;
      expect(entry.lastData).toBe(lastData.get(ids.get(patient.name)!));
      expect(entry.timeCGMUsePercent).toBeCloseTo(want.stats.timeCGMUsePercent, 10);
      if (want.shown) {
        expect(entry.timeInVeryLowPercent).toBeCloseTo(want.stats.veryLow, 10);
        expect(entry.timeInAnyLowPercent).toBeCloseTo(want.stats.anyLow, 10);
        expect(entry.timeInVeryHighPercent).toBeCloseTo(want.stats.veryHigh, 10);
        expect(entry.timeInAnyHighPercent).toBeCloseTo(want.stats.anyHigh, 10);
        expect(entry.timeInTargetPercent).toBeCloseTo(want.stats.tir, 10);
      } else {
        expect(entry.timeInTargetPercent).toBeUndefined();
      }
      if (want.stats.delta !== undefined) expect(entry.timeInTargetPercentDelta).toBeCloseTo(want.stats.delta, 10);
    }
    expect(results.timeInVeryLowPercent.map((entry) => entry.patient.fullName)).toEqual(['Real Low']);
    expect(results.dropInTimeInTargetPercent.map((entry) => entry.patient.fullName)).toEqual(['Real Drop']);
  });
});
