import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { XMLParser } from 'fast-xml-parser';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { clinicWithStaff } from '../support/clinics';
import { eventually } from '../support/eventually';
import { call, graphql } from '../support/http';

/**
 * The AGP over HTTP, from real uploads, checked against a computation written here (not the
 * service's code): the window of the summary's period, local time by each record's offset or the
 * zone asked for, numpy's default percentiles.
 */
let app: TestApp;
let patient: TestAccount;
let stranger: TestAccount;
let member: TestAccount;
let clinicId: string;

const MGDL_PER_MMOL = 18.01559;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FIVE_MINUTES = 5 * 60_000;
/** The newest reading: a little before now, at a whole 5 minutes. */
const NEWEST = Math.floor((Date.now() - 2 * HOUR) / FIVE_MINUTES) * FIVE_MINUTES;
const COUNT = 16 * 288;
/** Readings older than this carry their own offset (New York in winter, −5 h); newer ones none. */
const OFFSET_BEFORE = NEWEST - 8 * DAY;
const KOLKATA = 330;
const TOKYO = 540;

interface Sent {
  time: number;
  mgdl: number;
  offset: number | null;
}

const mgdlAt = (index: number) => 60 + ((index * 37) % 200) + (index % 7);
const regular: Sent[] = Array.from({ length: COUNT }, (_, index) => {
  const time = NEWEST - (COUNT - 1 - index) * FIVE_MINUTES;
  return { time, mgdl: mgdlAt(index), offset: time < OFFSET_BEFORE ? -300 : null };
});
/** Every 50th reading is followed a minute later by another: inside its 5 minutes, so the summary skips it. */
const blackedOut: Sent[] = regular
  .filter((_, index) => index % 50 === 0 && index < COUNT - 1)
  .map((reading) => ({ ...reading, time: reading.time + 60_000, mgdl: 400 }));

const record = ({ time, mgdl, offset }: Sent) => ({
  type: 'cbg',
  time: new Date(time).toISOString(),
  value: mgdl,
  units: 'mg/dL',
  sampleInterval: 300000,
  ...(offset === null ? {} : { timezoneOffset: offset }),
});

/** numpy.percentile's default, written from its definition. */
function numpyPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = ((sorted.length - 1) * p) / 100;
  const below = Math.floor(rank);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! * (1 - (rank - below)) + sorted[above]! * (rank - below);
}

/** The AGP the definition gives for the regular readings, in the zone `fallback` minutes east of UTC. */
function expectedAgp(days: number, fallback: number, units: 'MG_DL' | 'MMOL_L') {
  const newestHour = Math.floor(NEWEST / HOUR) * HOUR;
  const from = newestHour - days * DAY + HOUR;
  const bins: number[][] = Array.from({ length: 96 }, () => []);
  const counted = regular.filter((reading) => reading.time >= from);
  for (const reading of counted) {
    const local = Math.floor(reading.time / 60_000) + (reading.offset ?? fallback);
    const minute = ((local % 1440) + 1440) % 1440;
    const mmol = Math.round((reading.mgdl / MGDL_PER_MMOL) * 1e5) / 1e5;
    bins[Math.floor(minute / 15)]!.push(units === 'MG_DL' ? mmol * MGDL_PER_MMOL : mmol);
  }
  return {
    from: new Date(from).toISOString(),
    to: new Date(newestHour + HOUR).toISOString(),
    readings: counted.length,
    bins: bins.map((values, index) => ({ minute: index * 15, count: values.length, values })),
  };
}

type Bin = { minute: number; count: number } & Record<'p5' | 'p25' | 'p50' | 'p75' | 'p95', number | null>;

function expectAgp(
  agp: { from: string; to: string; readings: number; bins: Bin[] },
  want: ReturnType<typeof expectedAgp>,
) {
  expect(agp.from).toBe(want.from);
  expect(agp.to).toBe(want.to);
  expect(agp.readings).toBe(want.readings);
  expect(agp.bins).toHaveLength(96);
  agp.bins.forEach((bin, index) => {
    const { minute, count, values } = want.bins[index]!;
    expect([bin.minute, bin.count]).toEqual([minute, count]);
    for (const p of [5, 25, 50, 75, 95] as const) {
      const got = bin[`p${p}`];
      if (count < 5) expect(got).toBeNull();
      else expect(Math.abs(got! - numpyPercentile(values, p))).toBeLessThan(1e-9);
    }
  });
}

const agpPath = (query: string) => `/v1/patients/${patient.userid}/agp${query}`;

const SUMMARY_AGP = `query ($period: SummaryPeriod!, $zone: String) { me { glucoseSummary(period: $period, units: MG_DL) { cgm {
  dates { outdatedSince } period { totalRecords timeCGMUseRecords }
  agp(timeZone: $zone) { period units from to readings bins { minute count p5 p25 p50 p75 p95 } } } } } }`;

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

beforeAll(async () => {
  app = await startTestApp();
  const server = await serverToken(app);
  [patient, stranger] = await Promise.all([signUp(app, 'patient'), signUp(app, 'stranger')]);
  const staff = await clinicWithStaff(app, server, {
    name: 'Tokyo Clinic',
    preferredBgUnits: 'mmol/L',
    timezone: 'Asia/Tokyo',
  });
  ({ clinicId, member } = staff);
  const sent = await call(app.url, `/confirm/send/invite/${patient.userid}/clinic`, {
    token: patient.token,
    json: { shareCode: staff.clinic.shareCode, permissions: { view: {} } },
  });
  expect(sent.status).toBe(200);
  const accepted = await call(app.url, `/v1/clinics/${clinicId}/invites/patients/${sent.body.key}`, {
    method: 'PUT',
    token: member.token,
    json: { fullName: 'AGP Patient', birthDate: '2000-01-01' },
  });
  expect(accepted.status).toBe(200);

  const opened = await call(app.url, `/v1/users/${patient.userid}/datasets`, {
    token: patient.token,
    json: { dataSetType: 'continuous', deduplicator: { name: 'org.tidepool.deduplicator.dataset.drop.hash' } },
  });
  expect(opened.status).toBe(201);
  const records = [...regular, ...blackedOut].sort((a, b) => a.time - b.time).map(record);
  // The same records twice: the second upload is deduplicated away.
  await upload(opened.body.data.id, records);
  await upload(opened.body.data.id, records);
  await eventually(async () => {
    const reply = await graphql(app.url, SUMMARY_AGP, { period: 'FOURTEEN_DAYS' }, patient.token);
    return reply.body.data?.me.glucoseSummary?.cgm?.dates.outdatedSince === null;
  }, 'the summary counts the upload');
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe('GET /v1/patients/{userId}/agp', () => {
  it('answers the definition over the summary’s window, by record offset then the zone asked, in mg/dL', async () => {
    const reply = await call(app.url, agpPath('?period=14d&units=mg/dL&timeZone=Asia/Kolkata'), {
      token: patient.token,
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.body).toMatchObject({ period: '14d', units: 'mg/dL' });
    expectAgp(reply.body, expectedAgp(14, KOLKATA, 'MG_DL'));
  });

  it('defaults to 14 days and mg/dL, falls back to UTC, and answers 7 and 30 days and mmol/L', async () => {
    const plain = await call(app.url, agpPath(''), { token: patient.token });
    expect(plain.body).toMatchObject({ period: '14d', units: 'mg/dL' });
    expectAgp(plain.body, expectedAgp(14, 0, 'MG_DL'));
    const week = await call(app.url, agpPath('?period=7d&units=mmol/L'), { token: patient.token });
    expect(week.body).toMatchObject({ period: '7d', units: 'mmol/L' });
    expectAgp(week.body, expectedAgp(7, 0, 'MMOL_L'));
    const month = await call(app.url, agpPath('?period=30d'), { token: patient.token });
    expectAgp(month.body, expectedAgp(30, 0, 'MG_DL'));
  });

  it('counts what the CGM summary counts, and GraphQL answers the same numbers', async () => {
    const reply = await graphql(app.url, SUMMARY_AGP, { period: 'FOURTEEN_DAYS', zone: 'Asia/Kolkata' }, patient.token);
    expect(reply.body.errors).toBeUndefined();
    const cgm = reply.body.data.me.glucoseSummary.cgm;
    expect(cgm.agp.readings).toBe(cgm.period.totalRecords);
    expect(cgm.agp.readings).toBe(cgm.period.timeCGMUseRecords);
    expect(cgm.agp).toMatchObject({ period: 'FOURTEEN_DAYS', units: 'MG_DL' });
    expectAgp(cgm.agp, expectedAgp(14, KOLKATA, 'MG_DL'));
    const rest = await call(app.url, agpPath('?timeZone=Asia/Kolkata'), { token: patient.token });
    expect(rest.body.bins).toEqual(cgm.agp.bins);
  });

  it('inside a clinic: the clinic’s rules, units and time zone (REST clinicId and GraphQL clinic patient)', async () => {
    const reply = await call(app.url, agpPath(`?clinicId=${clinicId}`), { token: member.token });
    expect(reply.status).toBe(200);
    expect(reply.body.units).toBe('mmol/L');
    expectAgp(reply.body, expectedAgp(14, TOKYO, 'MMOL_L'));
    // Without the clinic, the member reads through the patient's grant to the clinic: no clinic zone.
    const direct = await call(app.url, agpPath(''), { token: member.token });
    expectAgp(direct.body, expectedAgp(14, 0, 'MG_DL'));
    const query = `query ($clinicId: ID!, $userId: ID!) { clinic(id: $clinicId) { patient(userId: $userId) {
      glucoseSummary { cgm { agp { units readings from to bins { minute count p5 p25 p50 p75 p95 } } } } } } }`;
    const viaGraphql = await graphql(app.url, query, { clinicId, userId: patient.userid }, member.token);
    expect(viaGraphql.body.errors).toBeUndefined();
    const agp = viaGraphql.body.data.clinic.patient.glucoseSummary.cgm.agp;
    expect(agp.units).toBe('MMOL_L');
    expectAgp(agp, expectedAgp(14, TOKYO, 'MMOL_L'));
  });

  it('refuses bad parameters naming them', async () => {
    for (const [query, name] of [
      ['?period=1d', 'period'],
      ['?period=2w', 'period'],
      ['?units=mg', 'units'],
      ['?timeZone=Mars/Olympus', 'timeZone'],
      ['?clinicId=nope', 'clinicId'],
    ]) {
      const reply = await call(app.url, agpPath(query!), { token: patient.token });
      expect([query, reply.status]).toEqual([query, 400]);
      expect(reply.body.reason).toContain(name);
    }
    const graphqlReply = await graphql(
      app.url,
      '{ me { glucoseSummary { cgm { agp(period: ONE_DAY) { readings } } } } }',
      {},
      patient.token,
    );
    expect(graphqlReply.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('answers 401 without credentials and 403 to a stranger, inside a clinic too; the access log records both', async () => {
    expect((await call(app.url, agpPath(''))).status).toBe(401);
    expect((await call(app.url, agpPath(''), { token: stranger.token })).status).toBe(403);
    expect((await call(app.url, `${agpPath('')}`.replace('/agp', '/agp.svg'), { token: stranger.token })).status).toBe(
      403,
    );
    expect((await call(app.url, agpPath(`?clinicId=${clinicId}`), { token: stranger.token })).status).toBe(403);
    const log = await call(app.url, `/v1/users/${patient.userid}/access_log`, { token: patient.token });
    expect(log.status).toBe(200);
    expect(log.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          accessorUserId: member.userid,
          clinicId,
          operation: 'GET /v1/patients/:userId/agp',
          outcome: 'allowed',
        }),
        expect.objectContaining({
          accessorUserId: stranger.userid,
          operation: 'GET /v1/patients/:userId/agp',
          outcome: 'refused',
        }),
      ]),
    );
  });

  it('answers a patient without CGM data with no window and 96 empty bins', async () => {
    const reply = await call(app.url, `/v1/patients/${stranger.userid}/agp`, { token: stranger.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ period: '14d', units: 'mg/dL', from: null, to: null, readings: 0 });
    expect(reply.body.bins).toHaveLength(96);
    expect(reply.body.bins.every((bin: Bin) => bin.count === 0 && bin.p50 === null)).toBe(true);
  });
});

describe('GET /v1/patients/{userId}/agp.svg', () => {
  it('draws the chart of the same parameters as SVG', async () => {
    const response = await fetch(`${app.url}/v1/patients/${patient.userid}/agp.svg?period=7d&units=mmol/L`, {
      headers: { 'x-tidepool-session-token': patient.token },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const svg = new XMLParser({ ignoreAttributes: false }).parse(await response.text()).svg;
    expect(svg.title).toBe('AGP, 7d, mmol/L');
    expect(svg.polygon.length).toBeGreaterThanOrEqual(2);
    expect(svg.path['@_class']).toBe('median');
  });
});
