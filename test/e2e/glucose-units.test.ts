import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { newClinic } from '../support/clinics';
import { eventually } from '../support/eventually';
import { cbg, uploadReadings } from '../support/glucose';
import { call, graphql, type Reply } from '../support/http';

/**
 * Glucose values in GraphQL read in either unit, the unit stated, a clinic's preferredBgUnits
 * the default inside it; filter bounds in either unit; fraction bounds outside 0 to 1 refused.
 */
let app: TestApp;
let admin: TestAccount;
let patient: TestAccount;
let clinicId: string;
let tagId: string;

const MGDL_PER_MMOL = 18.01559;
const DAY = 86_400_000;
/** Midnight (UTC) two days ago: the readings end before it. */
const END = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
/** A day of 5-minute readings: 12 at 50 mg/dL, 30 at 200, the rest at 120. */
const READINGS = Array.from({ length: 288 }, (_, index) => (index < 12 ? 50 : index < 42 ? 200 : 120));

beforeAll(async () => {
  app = await startTestApp();
  [admin, patient] = await Promise.all([signUp(app, 'admin'), signUp(app, 'patient')]);
  const clinic = await newClinic(app, admin); // preferredBgUnits mg/dL
  clinicId = clinic.id;
  await uploadReadings(
    app,
    patient.userid,
    patient.token,
    READINGS.map((mgdl, index) => cbg(END - DAY + index * 300_000, mgdl)),
  );
  const tag = await call(app.url, `/v1/clinics/${clinicId}/patient_tags`, {
    token: admin.token,
    json: { name: 'Units' },
  });
  tagId = tag.body.id;
  const sent = await call(app.url, `/confirm/send/invite/${patient.userid}/clinic`, {
    token: patient.token,
    json: { shareCode: clinic.shareCode, permissions: { view: {} } },
  });
  const accepted = await call(app.url, `/v1/clinics/${clinicId}/invites/patients/${sent.body.key}`, {
    method: 'PUT',
    token: admin.token,
    json: { fullName: 'Patient', birthDate: '1990-01-01', tags: [tagId] },
  });
  expect(accepted.status).toBe(200);
  await eventually(
    async () => {
      const [row] = await app.database.query(
        `select count(*)::int as n from glucose_summaries where user_id = $1 and outdated_since is null and periods is not null`,
        [patient.userid],
      );
      return row.n === 1;
    },
    'the summary is computed',
    60_000,
  );
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

const PERIOD = 'period { units averageGlucose averageGlucoseMmol standardDeviation min max maxDelta }';

describe('units of glucose values', () => {
  it('answers the same summary in MMOL_L and MG_DL, differing by exactly the factor, each stating its unit', async () => {
    const reply = await graphql(
      app.url,
      `{ me {
        mmol: glucoseSummary(period: ONE_DAY, units: MMOL_L) { cgm { ${PERIOD} } }
        mgdl: glucoseSummary(period: ONE_DAY, units: MG_DL) { cgm { ${PERIOD} } }
        plain: glucoseSummary(period: ONE_DAY) { cgm { period { units min } } } } }`,
      {},
      patient.token,
    );
    expect(reply.body.errors).toBeUndefined();
    const { mmol, mgdl, plain } = reply.body.data.me;
    expect(mmol.cgm.period.units).toBe('MMOL_L');
    expect(mgdl.cgm.period.units).toBe('MG_DL');
    expect(mmol.cgm.period.min).toBeCloseTo(50 / MGDL_PER_MMOL, 4);
    for (const name of ['averageGlucose', 'standardDeviation', 'min', 'max'])
      expect(mgdl.cgm.period[name]).toBe(mmol.cgm.period[name] * MGDL_PER_MMOL);
    expect(mmol.cgm.period.averageGlucose).toBe(mmol.cgm.period.averageGlucoseMmol);
    expect(mgdl.cgm.period.averageGlucoseMmol).toBe(mmol.cgm.period.averageGlucoseMmol);
    // Outside a clinic: mmol/L, as stored.
    expect(plain.cgm.period).toEqual({ units: 'MMOL_L', min: mmol.cgm.period.min });
  });

  it('answers readings in the unit asked, stated beside the value', async () => {
    const query = `query ($units: BgUnits) { me { glucoseReadings(
        filter: { from: "${new Date(END - DAY).toISOString()}", to: "${new Date(END).toISOString()}" }, first: 1,
        units: $units) { nodes { value units } } } }`;
    const [mmol, mgdl, plain] = await Promise.all(
      ['MMOL_L', 'MG_DL', null].map((units) => graphql(app.url, query, { units }, patient.token)),
    );
    const reading = (reply: Reply) => reply.body.data.me.glucoseReadings.nodes[0];
    expect(reading(mmol).units).toBe('MMOL_L');
    expect(reading(mgdl)).toEqual({ units: 'MG_DL', value: reading(mmol).value * MGDL_PER_MMOL });
    expect(reading(plain)).toEqual(reading(mmol));
  });

  it('reads a clinic’s patients in the clinic’s preferredBgUnits unless asked otherwise', async () => {
    const reply = await graphql(
      app.url,
      `
        query ($id: ID!) {
          clinic(id: $id) {
            preferredBgUnits
            patients {
              nodes {
                preferred: glucoseSummary(period: ONE_DAY) {
                  cgm {
                    period {
                      units
                      min
                    }
                  }
                }
                mmol: glucoseSummary(period: ONE_DAY, units: MMOL_L) {
                  cgm {
                    period {
                      units
                      min
                    }
                  }
                }
              }
            }
          }
        }
      `,
      { id: clinicId },
      admin.token,
    );
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.clinic.preferredBgUnits).toBe('MG_DL');
    const [{ preferred, mmol }] = reply.body.data.clinic.patients.nodes;
    expect(preferred.cgm.period.units).toBe('MG_DL');
    expect(mmol.cgm.period.units).toBe('MMOL_L');
    expect(preferred.cgm.period.min).toBe(mmol.cgm.period.min * MGDL_PER_MMOL);
  });
});

describe('units of the TIDE report', () => {
  it('answers thresholds and means in the clinic’s unit, or the one asked, beside the mmol/L fields', async () => {
    const query = `query ($id: ID!, $tags: [ID!]!, $cutoff: DateTime!, $units: BgUnits) { clinic(id: $id) {
      tideReport(period: ONE_DAY, tagIds: $tags, lastDataCutoff: $cutoff, units: $units) {
        config { thresholds { units highGlucose highGlucoseMmol veryLowGlucose } }
        categories { entries { units averageGlucose averageGlucoseMmol } } } } }`;
    const ask = (units: string | null) =>
      graphql(
        app.url,
        query,
        { id: clinicId, tags: [tagId], cutoff: new Date(END - 3 * DAY).toISOString(), units },
        admin.token,
      );
    const [preferred, mmol] = await Promise.all([ask(null), ask('MMOL_L')]);
    expect(preferred.body.errors).toBeUndefined();
    const thresholds = (reply: Reply) => reply.body.data.clinic.tideReport.config.thresholds;
    expect(thresholds(preferred)).toEqual({
      units: 'MG_DL',
      highGlucose: 10 * MGDL_PER_MMOL,
      highGlucoseMmol: 10,
      veryLowGlucose: 3 * MGDL_PER_MMOL,
    });
    expect(thresholds(mmol)).toMatchObject({ units: 'MMOL_L', highGlucose: 10, veryLowGlucose: 3 });
    const entry = (reply: Reply) =>
      (reply.body.data.clinic.tideReport.categories as { entries: Record<string, unknown>[] }[]).flatMap(
        (category) => category.entries,
      )[0]!;
    expect(entry(preferred).units).toBe('MG_DL');
    expect(entry(preferred).averageGlucose).toBe((entry(mmol).averageGlucose as number) * MGDL_PER_MMOL);
    expect(entry(mmol)).toMatchObject({ units: 'MMOL_L', averageGlucose: entry(mmol).averageGlucoseMmol });
  });
});

describe('clinical vocabulary', () => {
  it('starts each statistic’s description with its consensus name, so the docs pane finds TIR, TBR, GMI', async () => {
    const reply = await graphql(
      app.url,
      `
        {
          __type(name: "CgmPeriod") {
            fields {
              name
              description
            }
          }
        }
      `,
      {},
    );
    const described = Object.fromEntries(
      (reply.body.data.__type.fields as { name: string; description: string }[]).map((f) => [f.name, f.description]),
    );
    expect(described.timeInTargetPercent).toMatch(
      /^Time in range \(TIR\): share of time from 70 to 180 mg\/dL \(3\.9 to 10\.0 mmol\/L\).*a fraction from 0 to 1 \(0\.58 = 58%\)/,
    );
    expect(described.timeInAnyLowPercent).toMatch(/^Time below range \(TBR\): share of time below 70 mg\/dL/);
    expect(described.timeInVeryLowPercent).toMatch(/^Time below range \(TBR\) level 2: share of time below 54 mg\/dL/);
    expect(described.timeInAnyHighPercent).toMatch(/^Time above range \(TAR\): share of time above 180 mg\/dL/);
    expect(described.timeInVeryHighPercent).toMatch(/^Time above range \(TAR\) level 2: share of time above 250/);
    expect(described.glucoseManagementIndicator).toMatch(/^Glucose management indicator \(GMI\)/);
    expect(described.coefficientOfVariation).toMatch(/^Coefficient of variation \(CV\)/);
    expect(described.averageGlucose).toMatch(/^Mean glucose: .* in `units`/);
    expect(described.standardDeviation).toMatch(/^Standard deviation \(SD\)/);
    expect(described.timeCGMUsePercent).toMatch(/^Time CGM active: /);
  });
});

describe('filter bounds', () => {
  const QUERY = `query ($id: ID!, $filter: ClinicPatientFilter) {
    clinic(id: $id) { patients(filter: $filter) { totalCount } } }`;
  const count = async (filter: Record<string, unknown>) => {
    const reply = await graphql(
      app.url,
      QUERY,
      { id: clinicId, filter: { period: 'ONE_DAY', ...filter } },
      admin.token,
    );
    expect(reply.body.errors).toBeUndefined();
    return reply.body.data.clinic.patients.totalCount;
  };

  it('takes glucose bounds in the clinic’s unit by default, or in the unit the filter names', async () => {
    // The highest reading: 200 mg/dL, 11.1 mmol/L.
    expect(await count({ cgm: { max: { gte: 199, lte: 201 } } })).toBe(1);
    expect(await count({ cgm: { max: { gte: 201 } } })).toBe(0);
    expect(await count({ units: 'MMOL_L', cgm: { max: { gte: 11, lt: 11.2 } } })).toBe(1);
    expect(await count({ units: 'MMOL_L', cgm: { max: { gte: 199 } } })).toBe(0);
    // The mean in the filter's unit, or in mmol/L by its own name.
    expect(await count({ cgm: { averageGlucose: { gt: 100, lt: 140 } } })).toBe(1);
    expect(await count({ units: 'MG_DL', cgm: { averageGlucoseMmol: { gt: 5.5, lt: 8 } } })).toBe(1);
  });

  it('refuses a fraction bound outside 0 to 1, saying why', async () => {
    const reply = await graphql(
      app.url,
      QUERY,
      { id: clinicId, filter: { cgm: { timeInTargetPercent: { gt: 4 } } } },
      admin.token,
    );
    expect(reply.body.errors[0].message).toBe(
      'filter.cgm.timeInTargetPercent.gt is a fraction from 0 to 1; 4% is 0.04',
    );
    expect(reply.body.errors[0].extensions).toEqual(
      expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'filter.cgm.timeInTargetPercent.gt' }),
    );
    expect(await count({ cgm: { timeInTargetPercent: { gt: 0.5 } } })).toBe(1);
  });

  it('keeps Tidepool’s REST filters as they were: a fraction bound above 1 matches nobody, below it everybody', async () => {
    const list = (query: string) =>
      call(app.url, `/v1/clinics/${clinicId}/patients?period=1d&${query}`, { token: admin.token });
    const above = await list(`cgm.timeInTargetPercent=${encodeURIComponent('>4')}`);
    expect(above.status).toBe(200);
    expect(above.body.data).toEqual([]);
    const below = await list(`cgm.timeInTargetPercent=${encodeURIComponent('<4')}`);
    expect(below.body.data).toHaveLength(1);
    // And in mmol/L although the clinic prefers mg/dL.
    const highest = await list(`cgm.max=${encodeURIComponent('>11')}`);
    expect(highest.body.data).toHaveLength(1);
  });

  it('names the summary a statistic sort needs in GraphQL’s words', async () => {
    const reply = await graphql(
      app.url,
      `
        query ($id: ID!) {
          clinic(id: $id) {
            patients(orderBy: { field: TIME_IN_TARGET_PERCENT, direction: DESC }) {
              totalCount
            }
          }
        }
      `,
      { id: clinicId },
      admin.token,
    );
    expect(reply.body.errors[0].message).toContain('needs orderBy.summary (CGM or BGM)');
  });
});
