import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { clinicWithStaff } from '../support/clinics';
import { csvObjects, parseCsv } from '../support/csv';
import { eventually } from '../support/eventually';
import { cbg, uploadReadings } from '../support/glucose';
import { call, graphql, type Reply } from '../support/http';

/**
 * The patient list as CSV (`GET /v1/clinics/{clinicId}/patients` with Accept: text/csv or
 * format=csv) and GraphQL's link to it: the whole list in the JSON list's order and filters,
 * RFC 4180 read back, formula escaping, units, refusals and the access log.
 */
let app: TestApp;
let admin: TestAccount;
let member: TestAccount;
let outsider: TestAccount;
let withData: TestAccount;
let clinicId: string;
let tagId: string;

const MGDL_PER_MMOL = 18.01559;
const HOUR = 3_600_000;
const ODD_NAME = 'Doe, "Jim"\nJr';
const FORMULA = '=HYPERLINK("http://evil.example","click")';
const SPECIAL = [ODD_NAME, FORMULA, '+1 Plus', '-Minus', '@At'];
/** More patients than a JSON page (10 by default) or a GraphQL page (100 at most): 58 + the ones above + withData. */
const NUMBERED = 58;
const TOTAL = NUMBERED + SPECIAL.length + 1;

const list = (query = '', token = member.token, headers: Record<string, string> = {}) =>
  call(app.url, `/v1/clinics/${clinicId}/patients${query}`, { token, headers });
const csv = (query = '', token = member.token) => list(`?format=csv${query ? `&${query}` : ''}`, token);
const jsonIds = async (query = '') => {
  const reply = await list(`?limit=1000${query ? `&${query}` : ''}`);
  expect(reply.status).toBe(200);
  return (reply.body.data as { id: string }[]).map((patient) => patient.id);
};
const csvIds = (reply: Reply) => csvObjects(reply.text).map((row) => row.id);

beforeAll(async () => {
  app = await startTestApp();
  const server = await serverToken(app);
  const staffed = await clinicWithStaff(app, server, { name: 'CSV Clinic', preferredBgUnits: 'mg/dL' });
  ({ admin, member, outsider, clinicId } = staffed);
  const tag = await call(app.url, `/v1/clinics/${clinicId}/patient_tags`, {
    token: member.token,
    json: { name: 'Pump users' },
  });
  expect(tag.status).toBe(200);
  tagId = tag.body.id;
  const names = [
    ...SPECIAL,
    ...Array.from({ length: NUMBERED }, (_, index) => `Patient ${String(index).padStart(2, '0')}`),
  ];
  for (const [index, fullName] of names.entries()) {
    const created = await call(app.url, `/v1/clinics/${clinicId}/patients`, {
      token: member.token,
      json: {
        fullName,
        birthDate: `19${String(50 + (index % 40))}-01-02`,
        mrn: `MRN-${index}`,
        tags: index % 2 ? [tagId] : [],
      },
    });
    expect(created.status).toBe(200);
  }
  // A patient of its own with two days of CGM (so percentages are kept) in the clinic through an invitation.
  withData = await signUp(app, 'csv-data');
  const end = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
  const readings = Array.from({ length: 576 }, (_, index) =>
    cbg(end - (576 - index) * 300_000, index % 4 === 0 ? 60 : 140 + (index % 7)),
  );
  await uploadReadings(app, withData.userid, withData.token, readings);
  const sent = await call(app.url, `/confirm/send/invite/${withData.userid}/clinic`, {
    token: withData.token,
    json: { shareCode: staffed.clinic.shareCode, permissions: { view: {} } },
  });
  const accepted = await call(app.url, `/v1/clinics/${clinicId}/invites/patients/${sent.body.key}`, {
    method: 'PUT',
    token: member.token,
    json: { fullName: 'Zed Data', birthDate: '1990-01-01', tags: [tagId] },
  });
  expect(accepted.status).toBe(200);
  await eventually(async () => {
    const reply = await list(`?search=Zed&period=14d`);
    return reply.body.data?.[0]?.summary?.cgmStats?.periods?.['14d']?.averageGlucoseMmol !== undefined;
  }, 'the summary of the patient with data is kept');
}, 180_000);

afterAll(async () => {
  await app?.stop();
});

describe('the patient list as CSV', () => {
  it('streams every patient, with a header row, as an attachment, by Accept or format', async () => {
    const reply = await csv();
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(reply.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="clinic-${clinicId}-patients-14d-\\d{4}-\\d\\d-\\d\\d\\.csv"$`),
    );
    const [header, ...rows] = parseCsv(reply.text);
    expect(header!.slice(0, 7)).toEqual(['id', 'fullName', 'mrn', 'birthDate', 'email', 'tags', 'lastData']);
    expect(header).toContain('cgm.averageGlucose (mg/dL)');
    expect(rows).toHaveLength(TOTAL);
    expect(rows.every((row) => row.length === header!.length)).toBe(true);
    expect(csvIds(reply)).toEqual(await jsonIds());
    const negotiated = await list('', member.token, { accept: 'text/csv' });
    expect(negotiated.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csvIds(negotiated)).toEqual(csvIds(reply));
    const json = await list('', member.token, { accept: 'application/json, text/csv;q=0.5' });
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(json.body.data).toHaveLength(10);
  });

  it('honours the filters and the sort as the JSON list does', async () => {
    for (const query of [
      'sort=-fullName',
      'sort=%2BbirthDate',
      `tags=${tagId}&sort=%2BfullName`,
      'search=patient%201',
      'sort=-averageGlucoseMmol&sortType=cgm',
      'cgm.timeInTargetPercent=%3E0.1',
    ]) {
      const reply = await csv(query);
      expect(reply.status).toBe(200);
      expect({ query, ids: csvIds(reply) }).toEqual({ query, ids: await jsonIds(query) });
    }
    expect(csvIds(await csv('cgm.timeInTargetPercent=%3E0.1'))).toEqual([withData.userid]);
  });

  it('reads back names with commas, quotes and line breaks, escapes formulas, and names tags', async () => {
    const rows = csvObjects((await csv('sort=%2BfullName')).text);
    const names = rows.map((row) => row.fullName);
    expect(names).toEqual(expect.arrayContaining([ODD_NAME, `'${FORMULA}`, "'+1 Plus", "'-Minus", "'@At"]));
    expect(names.filter((name) => /^['=+\-@]/.test(name)).every((name) => name.startsWith("'"))).toBe(true);
    const zed = rows.find((row) => row.id === withData.userid)!;
    expect(zed.tags).toBe('Pump users');
    expect(rows.find((row) => row.fullName === ODD_NAME)!.tags).toBe('');
    expect(rows.find((row) => row.fullName === `'${FORMULA}`)).toMatchObject({ mrn: 'MRN-1', birthDate: '1951-01-02' });
  });

  it('writes the statistics in the units asked (the clinic’s by default), matching the JSON list’s numbers', async () => {
    const { dates, periods } = (await list('?search=Zed')).body.data[0].summary.cgmStats;
    const period = periods['14d'];
    const row = async (units?: string) =>
      csvObjects((await csv(`search=Zed${units ? `&units=${encodeURIComponent(units)}` : ''}`)).text)[0]!;
    const [byDefault, mgdl, mmol] = [await row(), await row('mg/dL'), await row('mmol/L')];
    expect(byDefault).toEqual(mgdl);
    for (const name of ['averageGlucose', 'standardDeviation', 'min', 'max']) {
      const json = period[name === 'averageGlucose' ? 'averageGlucoseMmol' : name];
      expect(Number(mmol[`cgm.${name} (mmol/L)`])).toBe(json);
      expect(Number(mgdl[`cgm.${name} (mg/dL)`])).toBeCloseTo(json * MGDL_PER_MMOL, 9);
    }
    for (const name of ['timeInTargetPercent', 'timeInVeryLowPercent', 'timeCGMUseMinutes', 'totalRecords'])
      expect([name, Number(mgdl[`cgm.${name}`])]).toEqual([name, period[name]]);
    expect(mgdl['cgm.lastData']).toBe(new Date(dates.lastData).toISOString());
    expect(mgdl.lastData).toBe(mgdl['cgm.lastData']);
  });

  it('refuses bad parameters before the first byte, naming them, and non-members', async () => {
    for (const [query, field] of [
      ['sort=~x', 'sort'],
      ['units=mg', 'units'],
      ['cgm.min=x', 'cgm.min'],
      ['period=2d', 'period'],
      ['tags=nope', 'tags'],
    ]) {
      const reply = await csv(query);
      expect({ query, status: reply.status }).toEqual({ query, status: 400 });
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.body.reason).toContain(field);
    }
    const format = await list('?format=xml');
    expect([format.status, format.body.reason]).toEqual([400, 'format must be json or csv']);
    expect((await csv('', outsider.token)).status).toBe(403);
    expect((await csv('', '')).status).toBe(401);
  });

  it('puts each patient read on the access log, as the JSON list does', async () => {
    expect((await csv()).status).toBe(200);
    await eventually(async () => {
      const log = await call(app.url, `/v1/users/${withData.userid}/access_log`, { token: withData.token });
      return (log.body as Record<string, unknown>[]).some(
        (entry) =>
          entry.accessorUserId === member.userid &&
          entry.operation === 'GET /v1/clinics/:clinicId/patients' &&
          entry.clinicId === clinicId &&
          entry.outcome === 'allowed',
      );
    }, 'the CSV read is on the patient’s access log');
  });

  it('describes the CSV beside the JSON in the OpenAPI document', async () => {
    const operation = (await call(app.url, '/openapi.json')).body.paths['/v1/clinics/{clinicId}/patients'].get;
    expect(Object.keys(operation.responses['200'].content).sort()).toEqual(['application/json', 'text/csv']);
    expect(operation.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(['format', 'units', 'limit', 'sort']),
    );
  });
});

describe('GraphQL’s link to the CSV', () => {
  const LINK = `query ($id: ID!, $filter: ClinicPatientFilter, $orderBy: ClinicPatientOrder, $units: BgUnits, $period: SummaryPeriod) {
    clinic(id: $id) { patientsCsvUrl(filter: $filter, orderBy: $orderBy, units: $units, period: $period) } }`;
  const link = (variables: Record<string, unknown>, token = member.token) =>
    graphql(app.url, LINK, { id: clinicId, ...variables }, token);

  it('answers the REST CSV of the same list, which the caller fetches with its own token', async () => {
    const variables = {
      filter: { tags: [tagId], cgm: { timeInTargetPercent: { gt: 0.1 } }, units: 'MG_DL' },
      orderBy: { field: 'AVERAGE_GLUCOSE_MMOL', direction: 'DESC', summary: 'CGM' },
      units: 'MMOL_L',
    };
    const reply = await link(variables);
    expect(reply.body.errors).toBeUndefined();
    const url = new URL(reply.body.data.clinic.patientsCsvUrl);
    expect(url.origin).toBe(new URL(app.url).origin);
    expect(url.pathname).toBe(`/v1/clinics/${clinicId}/patients`);
    const fetched = await fetch(url, { headers: { authorization: `Bearer ${member.token}` } });
    expect(fetched.status).toBe(200);
    const rows = csvObjects(await fetched.text());
    expect(rows.map((row) => row.id)).toEqual([withData.userid]);
    expect(Number(rows[0]!['cgm.averageGlucose (mmol/L)'])).toBeGreaterThan(0);
    const sorted = await link({ orderBy: { field: 'FULL_NAME', direction: 'DESC' } });
    const all = await fetch(sorted.body.data.clinic.patientsCsvUrl, {
      headers: { authorization: `Bearer ${member.token}` },
    });
    expect(csvObjects(await all.text()).map((row) => row.id)).toEqual(await jsonIds('sort=-fullName'));
  });

  it('refuses a list the REST CSV cannot say, a bad filter, and non-members', async () => {
    const twoBounds = await link({ filter: { cgm: { min: { gt: 3, lt: 5 } } } });
    expect(twoBounds.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(twoBounds.body.errors[0].message).toContain('filter.cgm.min');
    const periods = await link({ filter: { period: 'SEVEN_DAYS', cgm: { min: { gt: 3 } } }, period: 'THIRTY_DAYS' });
    expect(periods.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    const forbidden = await link({}, outsider.token);
    expect(forbidden.body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN' });
    expect((await link({}, admin.token)).body.data.clinic.patientsCsvUrl).toContain('format=csv');
  });
});
