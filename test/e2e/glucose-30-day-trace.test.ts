import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { random } from '../support/random';
import { eventually } from '../support/eventually';
import { call, graphql } from '../support/http';

/**
 * A realistic month of CGM wear uploaded through Tidepool's upload API, and every statistic of
 * every period checked against plain arithmetic over the same readings, written here from
 * docs/summaries.md (not the service's code).
 */
let app: TestApp;
let patient: TestAccount;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DAYS = 30;
const MGDL_PER_MMOL = 18.01559;
const toMmol = (mgdl: number) => Math.round((mgdl / MGDL_PER_MMOL) * 1e5) / 1e5;

interface Reading {
  time: number;
  mgdl: number;
  minutes: number;
}

/**
 * Thirty days ending at 23:55 UTC of yesterday: night, three meals, afternoon lows on some days,
 * very high evenings on others, a few extreme readings; a 15-minute sensor on days 12 and 13; a
 * sensor change (two hours without data) every ten days and a lost signal now and then. The
 * 23:00 hour of every day is steady: every period (and previous period) ends in such an hour,
 * whose within-hour variance Tidepool leaves out (B.6), so a steady one keeps the plain SD.
 */
function monthOfReadings(): Reading[] {
  const next = random(20261124);
  const end = Math.floor(Date.now() / DAY) * DAY;
  const start = end - DAYS * DAY;
  const readings: Reading[] = [];
  for (let day = 0; day < DAYS; day += 1) {
    const libre = day === 12 || day === 13;
    const step = libre ? 15 : 5;
    const lostFrom = 2 + Math.floor(next() * 18);
    for (let minute = 0; minute < 1440; minute += step) {
      const hour = minute / 60;
      if (day % 10 === 3 && hour >= 9 && hour < 11) continue; // sensor change and warm-up
      if (day % 4 === 1 && hour >= lostFrom && hour < lostFrom + 0.75) continue; // lost signal
      let mgdl: number;
      if (hour >= 23) mgdl = 118 + (day % 5);
      else if (hour < 6) mgdl = 95 + next() * 30;
      else if (hour >= 7 && hour < 9) mgdl = 150 + (hour - 7) * 70 + next() * 40;
      else if (hour >= 12 && hour < 13.5) mgdl = 140 + next() * 80;
      else if (hour >= 15 && hour < 16 && day % 3 === 0) mgdl = 48 + next() * 25;
      else if (hour >= 19 && hour < 21 && day % 4 === 2) mgdl = 240 + next() * 90;
      else mgdl = 100 + next() * 70;
      if (day === 20 && hour >= 20 && hour < 20.5) mgdl = 355 + next() * 20;
      readings.push({ time: start + day * DAY + minute * MINUTE, mgdl: Math.round(mgdl), minutes: step });
    }
  }
  return readings;
}

const hourOf = (time: number) => Math.floor(time / HOUR) * HOUR;

/** The statistics of the readings whose hour lies in (to − days, to], as B.6 defines them, kept as B.8 says. */
function periodStats(readings: Reading[], to: number, days: number) {
  const inside = readings.filter((reading) => hourOf(reading.time) > to - days * DAY && hourOf(reading.time) <= to);
  const minutes = inside.reduce((sum, reading) => sum + reading.minutes, 0);
  const values = inside.map((reading) => ({ v: toMmol(reading.mgdl), m: reading.minutes }));
  const band = (test: (v: number) => boolean) => values.filter(({ v }) => test(v));
  const bands = {
    VeryLow: band((v) => v < 3.0),
    Low: band((v) => v >= 3.0 && v < 3.9),
    AnyLow: band((v) => v < 3.9),
    Target: band((v) => v >= 3.9 && v <= 10.0),
    High: band((v) => v > 10.0 && v <= 13.9),
    VeryHigh: band((v) => v > 13.9),
    ExtremeHigh: band((v) => v >= 19.4),
    AnyHigh: band((v) => v > 10.0),
  };
  const mean = values.reduce((sum, { v, m }) => sum + v * m, 0) / minutes;
  const sd = Math.sqrt(values.reduce((sum, { v, m }) => sum + m * (v - mean) ** 2, 0) / minutes);
  const hours = [...new Set(inside.map((reading) => hourOf(reading.time)))].sort((a, b) => b - a);
  let daysWithData = hours.length ? 1 : 0;
  for (let index = 1, anchor = hours[0]!; index < hours.length; index += 1)
    if (anchor - hours[index]! >= DAY) {
      daysWithData += 1;
      anchor = hours[index]!;
    }
  const use = minutes / (days * 1440);
  const stats: Record<string, number | null> = {
    totalRecords: values.length,
    timeCGMUseRecords: values.length,
    timeCGMUseMinutes: minutes,
    timeCGMUsePercent: use,
    averageGlucoseMmol: mean,
    standardDeviation: sd,
    coefficientOfVariation: sd / mean,
    averageDailyRecords: values.length / days,
    hoursWithData: hours.length,
    daysWithData,
    min: Math.min(...values.map(({ v }) => v)),
    max: Math.max(...values.map(({ v }) => v)),
    glucoseManagementIndicator: use > 0.7 ? Math.round((0.09148 * (12.71 + 4.70587 * mean) + 2.152) * 10) / 10 : null,
  };
  // Shares of time only with enough wear: over 70% for a day, over 1,440 minutes for longer periods.
  const enough = days <= 1 ? use > 0.7 : minutes > 1440;
  for (const [name, members] of Object.entries(bands)) {
    const bandMinutes = members.reduce((sum, { m }) => sum + m, 0);
    stats[`timeIn${name}Minutes`] = bandMinutes;
    stats[`timeIn${name}Records`] = members.length;
    stats[`timeIn${name}Percent`] = enough ? bandMinutes / minutes : null;
  }
  return stats;
}

const RANGE_NAMES = ['VeryLow', 'Low', 'AnyLow', 'Target', 'High', 'VeryHigh', 'ExtremeHigh', 'AnyHigh'];
const FIELDS = [
  'totalRecords',
  'timeCGMUseRecords',
  'timeCGMUseMinutes',
  'timeCGMUsePercent',
  'averageGlucoseMmol',
  'standardDeviation',
  'coefficientOfVariation',
  'averageDailyRecords',
  'hoursWithData',
  'daysWithData',
  'min',
  'max',
  'glucoseManagementIndicator',
  ...RANGE_NAMES.flatMap((name) => [`timeIn${name}Minutes`, `timeIn${name}Records`, `timeIn${name}Percent`]),
];
const PERIODS = { ONE_DAY: 1, SEVEN_DAYS: 7, FOURTEEN_DAYS: 14, THIRTY_DAYS: 30 } as const;

const SUMMARY = `query ($period: SummaryPeriod!) { me { glucoseSummary(period: $period) { cgm {
  dates { lastData firstData outdatedSince }
  period { ${FIELDS.join(' ')} timeInTargetPercentDelta averageGlucoseMmolDelta totalRecordsDelta }
  previousPeriod { ${FIELDS.join(' ')} } } } } }`;

let readings: Reading[];

beforeAll(async () => {
  app = await startTestApp();
  patient = await signUp(app, 'month');
  readings = monthOfReadings();
  const opened = await call(app.url, `/v1/users/${patient.userid}/datasets`, {
    token: patient.token,
    json: { dataSetType: 'continuous' },
  });
  expect(opened.status).toBe(201);
  const records = readings.map((reading) => ({
    type: 'cbg',
    time: new Date(reading.time).toISOString(),
    value: reading.mgdl,
    units: 'mg/dL',
    sampleInterval: reading.minutes * MINUTE,
    deviceId: reading.minutes === 15 ? 'AbbottFreeStyleLibre-1' : 'DexG7-1',
  }));
  for (let first = 0; first < records.length; first += 1000) {
    const added = await call(app.url, `/v1/datasets/${opened.body.data.id}/data`, {
      token: patient.token,
      json: records.slice(first, first + 1000),
    });
    expect(added.status).toBe(200);
  }
});
afterAll(async () => {
  await app?.stop();
});

async function summaryOf(period: keyof typeof PERIODS) {
  let cgm: Record<string, any> | null = null;
  await eventually(async () => {
    const reply = await graphql(app.url, SUMMARY, { period }, patient.token);
    cgm = reply.body.data?.me.glucoseSummary?.cgm ?? null;
    return cgm !== null && cgm.dates.outdatedSince === null && cgm.dates.lastData !== null;
  }, 'the summary counts the month');
  return cgm!;
}

function expectStatistics(actual: Record<string, number | null>, expected: Record<string, number | null>) {
  for (const name of FIELDS) {
    const want = expected[name] ?? null;
    if (want === null) expect({ name, value: actual[name] }).toEqual({ name, value: null });
    else if (Number.isInteger(want) && !/Percent|Mmol|average|deviation|coefficient/i.test(name))
      expect({ name, value: actual[name] }).toEqual({ name, value: want });
    else expect({ name, close: Math.abs((actual[name] ?? NaN) - want) < 1e-9 }).toEqual({ name, close: true });
  }
}

describe('a month of CGM readings', () => {
  it('has the dates of its newest and oldest reading', async () => {
    const { dates } = await summaryOf('ONE_DAY');
    expect(dates.lastData).toBe(new Date(readings.at(-1)!.time).toISOString());
    expect(dates.firstData).toBe(new Date(readings[0]!.time).toISOString());
  });

  it.each(Object.entries(PERIODS))('matches plain arithmetic over the readings for %s', async (period, days) => {
    const summary = await summaryOf(period as keyof typeof PERIODS);
    const newestHour = hourOf(readings.at(-1)!.time);
    const current = periodStats(readings, newestHour, days);
    expectStatistics(summary.period, current);
    // The previous period of the same length; 30 days back there is none (zeros).
    const previous = periodStats(readings, newestHour - days * DAY, days);
    if (previous.totalRecords === 0) expect(summary.previousPeriod.totalRecords).toBe(0);
    else expectStatistics(summary.previousPeriod, previous);
    expect(summary.period.totalRecordsDelta).toBe(current.totalRecords! - previous.totalRecords!);
    if (previous.totalRecords)
      expect(summary.period.averageGlucoseMmolDelta).toBeCloseTo(
        current.averageGlucoseMmol! - previous.averageGlucoseMmol!,
        9,
      );
    if (current.timeInTargetPercent !== null && previous.timeInTargetPercent !== null && previous.totalRecords)
      expect(summary.period.timeInTargetPercentDelta).toBeCloseTo(
        current.timeInTargetPercent! - previous.timeInTargetPercent!,
        9,
      );
  });

  it('covers every band on this trace, so no statistic is checked only as zero', () => {
    const month = periodStats(readings, hourOf(readings.at(-1)!.time), 30);
    for (const name of RANGE_NAMES)
      expect({ name, records: month[`timeIn${name}Records`]! > 0 }).toEqual({ name, records: true });
  });
});
