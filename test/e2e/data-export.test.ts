import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import ExcelJS from 'exceljs';
import {
  CBG_COLUMNS,
  CSV_COLUMNS,
  SMBG_COLUMNS,
  UPLOAD_COLUMNS,
} from '../../src/domains/glucose/data-export/export-rows';
import { mgdlToMmol } from '../../src/domains/glucose/summary/units';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { newClinic } from '../support/clinics';
import { csvObjects } from '../support/csv';
import { eventually } from '../support/eventually';
import { call, graphql } from '../support/http';
import { uploadDataset } from '../support/glucose';

/**
 * `GET /export/{userId}` over HTTP: data uploaded through the uploader's routes in several
 * shapes, exported as JSON, CSV and an Excel workbook, and read back; its parameters, who may
 * export, the access log; and the local time of readings in GraphQL.
 */
let app: TestApp;
let owner: TestAccount;
let viewer: TestAccount;
let clinician: TestAccount;
let stranger: TestAccount;
let clinicId: string;
const datasets: Record<'paris' | 'libre', string> = { paris: '', libre: '' };

const FACTOR = 18.01559;

/** Every reading uploaded: as sent, and its expected local time without a caller's zone. */
const PARIS = [
  { type: 'cbg', time: '2024-03-09T23:00:00Z', value: 140, units: 'mg/dL', sampleInterval: 300000 },
  { type: 'cbg', time: '2024-03-31T01:30:00Z', value: 100, units: 'mg/dL', sampleInterval: 300000 },
  {
    type: 'cbg',
    time: '2024-03-10T00:00:00Z',
    value: 180,
    units: 'mg/dL',
    timezoneOffset: 330,
    trend: 'constant',
    sampleInterval: 300000,
  },
  { type: 'smbg', time: '2024-03-10T07:30:00Z', value: 6.4, units: 'mmol/L', subType: 'manual', deviceId: '=Contour' },
];
const LIBRE = [
  { type: 'cbg', time: '2024-03-11T00:00:00Z', value: 5.5, units: 'mmol/L', sampleInterval: 900000 },
  { type: 'cbg', time: '2024-03-11T00:15:00Z', value: 7.2, units: 'mmol/L', sampleInterval: 900000 },
  {
    type: 'cbg',
    time: '2024-03-11T00:30:00Z',
    value: 8.1,
    units: 'mmol/L',
    sampleInterval: 900000,
    timezone: 'Asia/Kolkata',
  },
].map((record) => ({ ...record, deviceId: 'FreeStyleLibre-1' }));

/** Local time, offset and source of each reading by time, with no caller's zone. */
const LOCAL: Record<string, [string, number, string]> = {
  '2024-03-09T23:00:00.000Z': ['2024-03-10T00:00:00', 60, 'dataset-zone'],
  '2024-03-31T01:30:00.000Z': ['2024-03-31T03:30:00', 120, 'dataset-zone'],
  '2024-03-10T00:00:00.000Z': ['2024-03-10T05:30:00', 330, 'record-offset'],
  '2024-03-10T07:30:00.000Z': ['2024-03-10T08:30:00', 60, 'dataset-zone'],
  '2024-03-11T00:00:00.000Z': ['2024-03-11T00:00:00', 0, 'utc'],
  '2024-03-11T00:15:00.000Z': ['2024-03-11T00:15:00', 0, 'utc'],
  '2024-03-11T00:30:00.000Z': ['2024-03-11T06:00:00', 330, 'record-zone'],
};
const ALL = [...PARIS, ...LIBRE];
const sent = (time: string) => ALL.find((record) => new Date(record.time).toISOString() === time)!;

/** The value a record was stored with (mmol/L), in `units`. */
function expectedValue(record: (typeof ALL)[number], units: 'mg/dL' | 'mmol/L'): number {
  const mmol = record.units === 'mg/dL' ? mgdlToMmol(record.value) : record.value;
  return units === 'mmol/L' ? mmol : mmol * FACTOR;
}

const upload = (dataset: object, records: object[], close: boolean) =>
  uploadDataset(app, owner, dataset, [records], close);

const exportOf = (query = '', token = owner.token, userId = owner.userid) =>
  call(app.url, `/export/${userId}${query}`, { token });

/** The workbook of an xlsx export, read back by exceljs. */
async function workbookOf(query: string): Promise<{ response: Response; workbook: ExcelJS.Workbook }> {
  const response = await fetch(`${app.url}/export/${owner.userid}${query}`, {
    headers: { 'x-tidepool-session-token': owner.token },
  });
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(await response.arrayBuffer()) as never);
  return { response, workbook };
}

beforeAll(async () => {
  app = await startTestApp();
  [owner, viewer, clinician, stranger] = await Promise.all(
    ['owner', 'viewer', 'clinician', 'stranger'].map((name) => signUp(app, name)),
  );
  await call(app.url, `/access/${owner.userid}/${viewer.userid}`, { token: owner.token, json: { view: {} } });
  datasets.paris = await upload(
    {
      type: 'upload',
      client: { name: 'org.tidepool.uploader', version: '2.60.0' },
      deviceId: 'DexG6-123',
      deviceManufacturers: ['Dexcom'],
      deviceModel: 'G6',
      deviceSerialNumber: 'SN-42',
      deviceTags: ['cgm', 'bgm'],
      time: '2024-04-01T08:00:00Z',
      timezone: 'Europe/Paris',
    },
    PARIS,
    true,
  );
  datasets.libre = await upload({ dataSetType: 'continuous', deviceManufacturers: ['Abbott'] }, LIBRE, false);
  const clinic = await newClinic(app, clinician, {
    name: 'Tokyo Clinic',
    preferredBgUnits: 'mg/dL',
    timezone: 'Asia/Tokyo',
  });
  clinicId = clinic.id;
  const invited = await call(app.url, `/confirm/send/invite/${owner.userid}/clinic`, {
    token: owner.token,
    json: { shareCode: clinic.shareCode, permissions: { view: {} } },
  });
  expect(invited.status).toBe(200);
  const accepted = await call(app.url, `/v1/clinics/${clinicId}/invites/patients/${invited.body.key}`, {
    method: 'PUT',
    token: clinician.token,
    json: { fullName: 'Exported Patient', birthDate: '2000-01-01' },
  });
  expect(accepted.status).toBe(200);
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

describe('JSON', () => {
  it('streams every reading in time order with its local time, in mg/dL by default, then the uploads', async () => {
    const reply = await exportOf();
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(reply.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="islet-${owner.userid}-\\d{4}-\\d{2}-\\d{2}\\.json"$`),
    );
    const records: Record<string, any>[] = reply.body;
    const readings = records.filter((record) => record.type !== 'upload');
    expect(readings.map((record) => record.time)).toEqual(Object.keys(LOCAL).sort());
    for (const reading of readings) {
      const record = sent(reading.time);
      expect(reading.units).toBe('mg/dL');
      expect(Math.abs(reading.value - expectedValue(record, 'mg/dL'))).toBeLessThan(1e-9);
      if (record.units === 'mg/dL') expect(Math.abs(reading.value - record.value)).toBeLessThan(1e-4);
      expect([reading.localTime, reading.localTimeOffset, reading.localTimeSource]).toEqual(LOCAL[reading.time]);
      expect(reading.uploadId).toBe(PARIS.includes(record as never) ? datasets.paris : datasets.libre);
    }
    expect(readings.find((reading) => reading.type === 'smbg')).toMatchObject({
      subType: 'manual',
      deviceId: '=Contour',
    });
    expect(readings.find((reading) => reading.trend)).toMatchObject({ trend: 'constant', timezoneOffset: 330 });
    expect(records.slice(readings.length)).toEqual([
      expect.objectContaining({
        type: 'upload',
        id: datasets.paris,
        uploadId: datasets.paris,
        deviceManufacturers: ['Dexcom'],
        deviceModel: 'G6',
        deviceSerialNumber: 'SN-42',
        timezone: 'Europe/Paris',
        client: { name: 'org.tidepool.uploader', version: '2.60.0' },
      }),
      expect.objectContaining({ type: 'upload', id: datasets.libre, deviceManufacturers: ['Abbott'] }),
    ]);
  });

  it('converts to mmol/L and applies the caller’s zone where record and upload name none', async () => {
    const reply = await exportOf('?bgUnits=mmol/L&timeZone=America/New_York');
    const readings: Record<string, any>[] = reply.body.filter((record: any) => record.type !== 'upload');
    for (const reading of readings) {
      expect(reading.units).toBe('mmol/L');
      expect(Math.abs(reading.value - expectedValue(sent(reading.time), 'mmol/L'))).toBeLessThan(1e-9);
    }
    // US daylight time began on 10 March: the 11th is at −04:00.
    expect(readings.find((reading) => reading.time === '2024-03-11T00:00:00.000Z')).toMatchObject({
      localTime: '2024-03-10T20:00:00',
      localTimeOffset: -240,
      localTimeSource: 'caller-zone',
    });
    expect(readings.find((reading) => reading.time === '2024-03-11T00:30:00.000Z')).toMatchObject({
      localTimeSource: 'record-zone',
    });
  });

  it('applies the clinic’s zone for its clinician, after the caller’s', async () => {
    const asClinic = await exportOf(`?clinicId=${clinicId}`, clinician.token);
    expect(asClinic.status).toBe(200);
    expect(asClinic.body.find((record: any) => record.time === '2024-03-11T00:15:00.000Z')).toMatchObject({
      localTime: '2024-03-11T09:15:00',
      localTimeOffset: 540,
      localTimeSource: 'clinic-zone',
    });
    const both = await exportOf(`?clinicId=${clinicId}&timeZone=UTC`, clinician.token);
    expect(both.body.find((record: any) => record.time === '2024-03-11T00:15:00.000Z').localTimeSource).toBe(
      'caller-zone',
    );
    expect((await exportOf(`?clinicId=${clinicId}`, viewer.token)).status).toBe(403);
  });

  it('keeps readings inside startDate and endDate (both inclusive) and only their uploads', async () => {
    const reply = await exportOf('?startDate=2024-03-10T00:00:00Z&endDate=2024-03-10T07:30:00Z');
    expect(reply.body.map((record: any) => [record.type, record.time ?? null])).toEqual([
      ['cbg', '2024-03-10T00:00:00.000Z'],
      ['smbg', '2024-03-10T07:30:00.000Z'],
      ['upload', '2024-04-01T08:00:00.000Z'],
    ]);
    expect((await exportOf('?startDate=2030-01-01T00:00:00Z')).body).toEqual([]);
  });
});

describe('CSV', () => {
  it('is one RFC 4180 table with a header row: readings, then uploads, formula text escaped', async () => {
    const reply = await exportOf('?format=csv&bgUnits=mmol/L');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(reply.headers.get('content-disposition')).toMatch(/^attachment; filename="islet-.*\.csv"$/);
    expect(reply.text.slice(0, reply.text.indexOf('\r\n'))).toBe(CSV_COLUMNS.join(','));
    const rows = csvObjects(reply.text);
    expect(rows.map((row) => row.type)).toEqual(['cbg', 'cbg', 'smbg', 'cbg', 'cbg', 'cbg', 'cbg', 'upload', 'upload']);
    const readings = rows.filter((row) => row.type !== 'upload');
    expect(readings).toHaveLength(7);
    for (const row of readings) {
      const time = row.time!;
      expect(Math.abs(Number(row.value) - expectedValue(sent(time), 'mmol/L'))).toBeLessThan(1e-9);
      expect([row.localTime, Number(row.localTimeOffset), row.localTimeSource]).toEqual(LOCAL[time]);
    }
    expect(readings.find((row) => row.type === 'smbg')).toMatchObject({ deviceId: "'=Contour", subType: 'manual' });
    expect(readings.find((row) => row.trend === 'constant')).toMatchObject({
      timezoneOffset: '330',
      sampleInterval: '300000',
    });
    expect(rows.filter((row) => row.type === 'upload')).toEqual([
      expect.objectContaining({
        id: datasets.paris,
        deviceManufacturers: 'Dexcom',
        deviceTags: 'cgm|bgm',
        timezone: 'Europe/Paris',
        clientName: 'org.tidepool.uploader',
      }),
      expect.objectContaining({ id: datasets.libre, deviceManufacturers: 'Abbott', timezone: '' }),
    ]);
  });
});

describe('XLSX', () => {
  it('is a workbook with the sheets cbg, smbg and uploads, each with its header and rows', async () => {
    const { response, workbook } = await workbookOf('?format=xlsx');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="islet-.*\.xlsx"$/);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['cbg', 'smbg', 'uploads']);
    const rowsOf = (name: string) => {
      const values: unknown[][] = [];
      workbook.getWorksheet(name)!.eachRow((row) => values.push((row.values as unknown[]).slice(1)));
      return values;
    };
    const [cbgHeader, ...cbg] = rowsOf('cbg');
    const [smbgHeader, ...smbg] = rowsOf('smbg');
    const [uploadHeader, ...uploads] = rowsOf('uploads');
    expect([cbgHeader, smbgHeader, uploadHeader]).toEqual([CBG_COLUMNS, SMBG_COLUMNS, UPLOAD_COLUMNS]);
    expect([cbg.length, smbg.length, uploads.length]).toEqual([6, 1, 2]);
    const column = (header: string[], name: string) => header.indexOf(name);
    for (const row of cbg) {
      const time = row[column(CBG_COLUMNS, 'time')] as string;
      expect(typeof row[column(CBG_COLUMNS, 'value')]).toBe('number');
      expect(Math.abs((row[column(CBG_COLUMNS, 'value')] as number) - expectedValue(sent(time), 'mg/dL'))).toBeLessThan(
        1e-9,
      );
      expect(row[column(CBG_COLUMNS, 'localTime')]).toBe(LOCAL[time]![0]);
    }
    expect(smbg[0]![column(SMBG_COLUMNS, 'subType')]).toBe('manual');
    expect(uploads.map((row) => row[column(UPLOAD_COLUMNS, 'id')])).toEqual([datasets.paris, datasets.libre]);
    expect(uploads[0]![column(UPLOAD_COLUMNS, 'deviceSerialNumber')]).toBe('SN-42');
  });
});

describe('bad parameters and callers', () => {
  it.each([
    ['format=pdf', 'format'],
    ['bgUnits=mg', 'bgUnits'],
    ['startDate=yesterday', 'startDate'],
    ['endDate=2024-13-01T00:00:00Z', 'endDate'],
    ['timeZone=Mars/Olympus_Mons', 'timeZone'],
    ['startDate=2024-03-02T00:00:00Z&endDate=2024-03-01T00:00:00Z', 'startDate'],
  ])('answers %s with 400 naming %s', async (query, name) => {
    const reply = await exportOf(`?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toContain(name);
  });

  it('answers a stranger, an unknown account and no credentials as GET /data does', async () => {
    const unknown = 'f'.repeat(10);
    for (const [token, userId] of [
      [stranger.token, owner.userid],
      [stranger.token, unknown],
      [undefined, owner.userid],
    ] as const) {
      const data = await call(app.url, `/data/${userId}`, { token });
      const exported = await call(app.url, `/export/${userId}?format=csv`, { token });
      expect({ status: exported.status, userId }).toEqual({ status: data.status, userId });
      expect(exported.status).toBeGreaterThanOrEqual(401);
    }
    expect((await exportOf('', viewer.token)).status).toBe(200);
  });

  it('puts each export on the patient’s access log', async () => {
    await exportOf('?format=xlsx', viewer.token);
    await exportOf('', stranger.token);
    await eventually(async () => {
      const log = await call(app.url, `/v1/users/${owner.userid}/access_log`, { token: owner.token });
      const exports = log.body.filter((entry: any) => entry.operation === 'GET /export/:userId');
      return (
        exports.some((entry: any) => entry.accessorUserId === viewer.userid && entry.outcome === 'allowed') &&
        exports.some((entry: any) => entry.accessorUserId === stranger.userid && entry.outcome === 'refused')
      );
    }, 'the exports are on the access log');
  });
});

describe('GraphQL local time', () => {
  const READINGS = `query ($id: ID!, $tz: String, $clinic: ID) { user(id: $id) { timeZone
    glucoseReadings(filter: { from: "2024-03-01T00:00:00Z", to: "2024-04-01T00:00:00Z" }, first: 20, timeZone: $tz, clinicId: $clinic) {
      nodes { time localTime timezoneOffset localTimeSource } } } }`;

  it('gives each reading its local time, offset and source, and the account the zone its uploads last named', async () => {
    const reply = await graphql(app.url, READINGS, { id: owner.userid }, owner.token);
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.user.timeZone).toBe('Europe/Paris');
    for (const node of reply.body.data.user.glucoseReadings.nodes) {
      const [localTime, offset, source] = LOCAL[new Date(node.time).toISOString()]!;
      expect(node).toMatchObject({
        localTime,
        timezoneOffset: offset,
        localTimeSource: source.toUpperCase().replace('-', '_'),
      });
    }
    const withZone = await graphql(app.url, READINGS, { id: owner.userid, tz: 'Asia/Kolkata' }, owner.token);
    const libre = withZone.body.data.user.glucoseReadings.nodes.find(
      (node: any) => node.time === '2024-03-11T00:00:00.000Z',
    );
    expect(libre).toMatchObject({
      localTime: '2024-03-11T05:30:00',
      timezoneOffset: 330,
      localTimeSource: 'CALLER_ZONE',
    });
  });

  it('reads the readings’ datasets in one statement however many readings ask (the dataset loader)', async () => {
    const statements = async (first: number) => {
      const query = `query ($id: ID!) { user(id: $id) { glucoseReadings(filter: { from: "2024-03-01T00:00:00Z", to: "2024-04-01T00:00:00Z" }, first: ${first}) { nodes { localTime } } } }`;
      const reply = await graphql(app.url, query, { id: owner.userid }, owner.token);
      expect(reply.body.data.user.glucoseReadings.nodes).toHaveLength(first);
      return Number(reply.headers.get('x-sql-statements'));
    };
    const two = await statements(2);
    expect(two).toBeGreaterThan(0);
    expect(await statements(7)).toBe(two);
  });

  it('takes the clinic’s zone when asked (a server here: clinicians read accounts they hold), refuses an unknown zone', async () => {
    const asClinic = await graphql(app.url, READINGS, { id: owner.userid, clinic: clinicId }, await serverToken(app));
    expect(asClinic.body.errors).toBeUndefined();
    expect(
      asClinic.body.data.user.glucoseReadings.nodes.find((node: any) => node.time === '2024-03-11T00:15:00.000Z'),
    ).toMatchObject({
      localTime: '2024-03-11T09:15:00',
      localTimeSource: 'CLINIC_ZONE',
    });
    const bad = await graphql(app.url, READINGS, { id: owner.userid, tz: 'Nowhere/Else' }, owner.token);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'timeZone' });
  });

  it('gives a clinic’s patient the zone its uploads last named; strangers read none', async () => {
    const reply = await graphql(
      app.url,
      'query ($c: ID!, $u: ID!) { clinic(id: $c) { patient(userId: $u) { timeZone } } }',
      { c: clinicId, u: owner.userid },
      clinician.token,
    );
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.clinic.patient.timeZone).toBe('Europe/Paris');
    const hidden = await graphql(
      app.url,
      'query ($id: ID!) { users(ids: [$id]) { timeZone } }',
      { id: owner.userid },
      stranger.token,
    );
    expect(hidden.body.data?.users?.[0]?.timeZone ?? null).toBeNull();
  });
});
