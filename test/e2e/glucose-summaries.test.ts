import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { joinClinic, newClinic } from '../support/clinics';
import { expectMatchesOperation } from '../support/openapi';
import { call, graphql } from '../support/http';
import { cbg } from '../support/glucose';

/**
 * Summaries computed by the service from real uploads, checked against plain arithmetic over the
 * same readings done here (not the service's code).
 */
let app: TestApp;
let patient: TestAccount;

const MGDL_PER_MMOL = 18.01559;
const toMmol = (mgdl: number) => Math.round((mgdl / MGDL_PER_MMOL) * 100000) / 100000;
const DAY_START = Date.UTC(2026, 10, 20);
const FIVE_MINUTES = 5 * 60_000;

/** A day of 5-minute readings with a plausible shape: a night, meals, a low in the afternoon; the last hour steady. */
function dayOfReadings(day: number): number[] {
  return Array.from({ length: 288 }, (_, index) => {
    const hour = index / 12;
    if (hour >= 23) return 110;
    if (hour < 6) return 95 + ((index * 7 + day) % 20);
    if (hour >= 8 && hour < 10) return 160 + ((index * 13 + day * 5) % 120);
    if (hour >= 15 && hour < 15.5) return 48 + (index % 10);
    return 100 + ((index * 11 + day * 3) % 90);
  });
}

async function upload(datasetId: string, records: object[]) {
  for (let start = 0; start < records.length; start += 1000) {
    const reply = await call(app.url, `/v1/datasets/${datasetId}/data`, {
      method: 'POST',
      token: patient.token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(records.slice(start, start + 1000)),
    });
    expect(reply.status).toBe(200);
  }
}

const SUMMARY = `query ($period: SummaryPeriod!) { me { glucoseSummary(period: $period) { cgm {
  dates { lastData firstData outdatedSince }
  period { totalRecords timeCGMUseMinutes timeCGMUsePercent timeInVeryLowPercent timeInLowPercent timeInAnyLowPercent
    timeInTargetPercent timeInHighPercent timeInVeryHighPercent timeInAnyHighPercent averageGlucoseMmol
    glucoseManagementIndicator standardDeviation coefficientOfVariation hoursWithData daysWithData
    timeInTargetPercentDelta glycemiaRiskIndex glycemiaRiskZone }
  previousPeriod { totalRecords averageGlucoseMmol } } bgm { dates { lastData } } } } }`;

async function currentSummary(period = 'ONE_DAY') {
  let summary: Record<string, any> | null = null;
  await eventually(async () => {
    const reply = await graphql(app.url, SUMMARY, { period }, patient.token);
    summary = reply.body.data?.me.glucoseSummary?.cgm ?? null;
    return summary !== null && summary.dates.outdatedSince === null;
  }, 'the summary is up to date');
  return summary!;
}

/** Plain statistics of mg/dL readings, all 5 minutes long, in Tidepool's bands. */
function expected(mgdl: number[]) {
  const mmol = mgdl.map(toMmol);
  const share = (test: (value: number) => boolean) => mmol.filter(test).length / mmol.length;
  const mean = mmol.reduce((sum, value) => sum + value, 0) / mmol.length;
  const sd = Math.sqrt(mmol.reduce((sum, value) => sum + (value - mean) ** 2, 0) / mmol.length);
  return {
    veryLow: share((v) => v < 3.0),
    low: share((v) => v >= 3.0 && v < 3.9),
    target: share((v) => v >= 3.9 && v <= 10.0),
    high: share((v) => v > 10.0 && v <= 13.9),
    veryHigh: share((v) => v > 13.9),
    mean,
    sd,
    gmi: Math.round((3.31 + 0.02392 * mean * MGDL_PER_MMOL) * 10) / 10,
  };
}

beforeAll(async () => {
  app = await startTestApp();
  patient = await signUp(app, 'patient');
});
afterAll(async () => {
  await app?.stop();
});

describe('CGM summaries from uploads', () => {
  const dayOne = dayOfReadings(1);
  const dayTwo = dayOfReadings(2);
  let datasetId: string;

  it('summarises two days of readings as plain arithmetic over the newest day says', async () => {
    const opened = await call(app.url, `/v1/users/${patient.userid}/datasets`, {
      token: patient.token,
      json: { dataSetType: 'continuous' },
    });
    datasetId = opened.body.data.id;
    const records = [...dayOne, ...dayTwo].map((mgdl, index) => cbg(DAY_START + index * FIVE_MINUTES, mgdl));
    await upload(datasetId, records);

    const summary = await currentSummary();
    const want = expected(dayTwo);
    const period = summary.period;
    expect(summary.dates.lastData).toBe(new Date(DAY_START + (2 * 288 - 1) * FIVE_MINUTES).toISOString());
    expect(period.totalRecords).toBe(288);
    expect(period.timeCGMUseMinutes).toBe(1440);
    expect(period.timeCGMUsePercent).toBe(1);
    expect(period.timeInVeryLowPercent).toBeCloseTo(want.veryLow, 10);
    expect(period.timeInLowPercent).toBeCloseTo(want.low, 10);
    expect(period.timeInAnyLowPercent).toBeCloseTo(want.veryLow + want.low, 10);
    expect(period.timeInTargetPercent).toBeCloseTo(want.target, 10);
    expect(period.timeInHighPercent).toBeCloseTo(want.high, 10);
    expect(period.timeInVeryHighPercent).toBeCloseTo(want.veryHigh, 10);
    expect(period.timeInAnyHighPercent).toBeCloseTo(want.high + want.veryHigh, 10);
    expect(period.averageGlucoseMmol).toBeCloseTo(want.mean, 8);
    expect(period.standardDeviation).toBeCloseTo(want.sd, 8);
    expect(period.coefficientOfVariation).toBeCloseTo(want.sd / want.mean, 8);
    expect(period.glucoseManagementIndicator).toBe(want.gmi);
    expect(period.hoursWithData).toBe(24);
    expect(period.daysWithData).toBe(1);
    expect(summary.previousPeriod.totalRecords).toBe(288);
    expect(summary.previousPeriod.averageGlucoseMmol).toBeCloseTo(expected(dayOne).mean, 8);
    expect(period.timeInTargetPercentDelta).toBeCloseTo(want.target - expected(dayOne).target, 10);
    const risk = 100 * (3.0 * want.veryLow + 2.4 * want.low + 1.6 * want.veryHigh + 0.8 * want.high);
    expect(period.glycemiaRiskIndex).toBeCloseTo(Math.min(100, risk), 8);
  });

  it('counts a later upload of older readings, and equals a full rebuild', async () => {
    // A day before the others arrives late: only the 7-day view changes, and no reading counts twice.
    const dayZero = dayOfReadings(0);
    await upload(
      datasetId,
      dayZero.map((mgdl, index) => cbg(DAY_START - 288 * FIVE_MINUTES + index * FIVE_MINUTES, mgdl)),
    );
    const week = await currentSummary('SEVEN_DAYS');
    expect(week.period.totalRecords).toBe(3 * 288);
    expect(week.period.averageGlucoseMmol).toBeCloseTo(expected([...dayZero, ...dayOne, ...dayTwo]).mean, 8);

    const stored = async () =>
      (
        await app.database.query('select periods, last_data, first_data from glucose_summaries where user_id = $1', [
          patient.userid,
        ])
      )[0];
    const incremental = await stored();
    const rebuilt = await graphql(
      app.url,
      'mutation ($id: ID!) { rebuildGlucoseSummaries(input: { userId: $id }) { userId } }',
      { id: patient.userid },
      await serverToken(app),
    );
    expect(rebuilt.body.data.rebuildGlucoseSummaries.userId).toBe(patient.userid);
    expect(await stored()).toEqual(incremental);
  });

  it('shows the patient’s summary to the clinic it shares with, in the clinic’s patient list', async () => {
    const admin = await signUp(app, 'admin');
    const clinic = await newClinic(app, admin);
    await joinClinic(app, clinic, admin, patient, 'Summarised Patient');
    const list = await graphql(
      app.url,
      `
        query ($id: ID!) {
          clinic(id: $id) {
            patients(first: 10) {
              nodes {
                userId
                glucoseSummary(period: ONE_DAY) {
                  cgm {
                    period {
                      totalRecords
                      averageGlucoseMmol
                    }
                  }
                  bgm {
                    dates {
                      lastData
                    }
                  }
                }
              }
            }
          }
        }
      `,
      { id: clinic.id },
      admin.token,
    );
    const [node] = list.body.data.clinic.patients.nodes;
    expect(node.userId).toBe(patient.userid);
    expect(node.glucoseSummary.cgm.period.totalRecords).toBe(288);
    expect(node.glucoseSummary.bgm).toBeNull();

    // The legacy list carries Tidepool's summary shape, every period keyed as Tidepool keys it.
    const rest = await call(app.url, `/v1/clinics/${clinic.id}/patients`, { token: admin.token });
    expect(rest.status).toBe(200);
    const summary = rest.body.data[0].summary;
    expect(summary.bgmStats).toBeUndefined();
    expect(summary.cgmStats.config).toMatchObject({
      schemaVersion: 6,
      lowGlucoseThreshold: 3.9,
      highGlucoseThreshold: 10,
    });
    expect(summary.cgmStats.dates.lastData).toBe(new Date(DAY_START + (2 * 288 - 1) * FIVE_MINUTES).toISOString());
    expect(Object.keys(summary.cgmStats.periods)).toEqual(['1d', '7d', '14d', '30d']);
    expect(summary.cgmStats.periods['1d']).toMatchObject({ totalRecords: 288, timeCGMUseMinutes: 1440 });
    // Three days of wear are more than 1,440 minutes: the 7-day shares are kept.
    expect(summary.cgmStats.periods['7d'].timeInTargetPercent).toBeGreaterThan(0);
    await expectMatchesOperation(rest, 'clinic.v1.yaml', 'ListPatients');
  });

  it('answers a summary written before its clinic copy was kept exactly as one written after', async () => {
    const admin = await signUp(app, 'copy-admin');
    const clinic = await newClinic(app, admin);
    await joinClinic(app, clinic, admin, patient, 'Copied Patient');
    const paths = [
      `/v1/clinics/${clinic.id}/patients`,
      `/v1/clinics/${clinic.id}/patients?offsetPeriods=true`,
      `/v1/clinics/${clinic.id}/patients/${patient.userid}`,
    ];
    const texts = async () =>
      Promise.all(
        paths.map(async (path) => {
          const reply = await fetch(`${app.url}${path}`, { headers: { 'x-tidepool-session-token': admin.token } });
          expect(reply.status).toBe(200);
          return reply.text();
        }),
      );
    const kept = await texts();
    // The offset list shows the previous periods, which differ from the current ones.
    const periods = (text: string) => JSON.stringify(JSON.parse(text).data[0].summary.cgmStats.periods);
    expect(periods(kept[1]!)).not.toBe(periods(kept[0]!));
    const [{ count }] = await app.database.query(
      `with forgotten as (update glucose_summaries set clinic_periods = null, clinic_offset_periods = null
          where user_id = $1 and clinic_periods is not null returning 1) select count(*)::int as count from forgotten`,
      [patient.userid],
    );
    expect(count).toBe(1);
    expect(await texts()).toEqual(kept);
  });

  it('refuses rebuilds to anyone but a server, and shows no summary to other users', async () => {
    const rebuilt = await graphql(
      app.url,
      'mutation ($id: ID!) { rebuildGlucoseSummaries(input: { userId: $id }) { userId } }',
      { id: patient.userid },
      patient.token,
    );
    expect(rebuilt.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const stranger = await signUp(app, 'stranger');
    const reply = await graphql(
      app.url,
      'query ($id: ID!) { users(ids: [$id]) { glucoseSummary { cgm { dates { lastData } } } } }',
      { id: patient.userid },
      stranger.token,
    );
    expect(JSON.stringify(reply.body.data)).not.toContain('lastData');
  });
});
