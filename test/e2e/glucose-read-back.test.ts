import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { uploadDataset } from '../support/glucose';
import { random } from '../support/random';
import { call } from '../support/http';

/**
 * Every shape of record the upload API accepts, read back through `GET /data` and the JSON and
 * CSV exports, compared text for text (key order included) with what the service answered before
 * readings were stored compactly (`glucose-read-back.golden.txt`, written by this test with
 * `GOLDEN=write` on the code of that time). Only what the service draws at random or from the
 * clock (ids it makes, upload ids, created times) is replaced by names before comparing.
 */
let app: TestApp;
let owner: TestAccount;

const GOLDEN = join(__dirname, 'glucose-read-back.golden.txt');
const MINUTE = 60_000;

/** Two days of a Dexcom trace (5 minutes) then a Libre sensor (15 minutes), as the 30-day trace uploads them. */
function trace(): object[] {
  const next = random(20261127);
  const start = Date.UTC(2024, 2, 30, 22);
  const records: object[] = [];
  for (let minute = 0; minute < 2 * 1440; minute += 5) {
    const libre = minute >= 1440;
    if (libre && minute % 15) continue;
    const time = new Date(start + minute * MINUTE).toISOString();
    records.push({
      type: 'cbg',
      time,
      value: Math.round(60 + next() * 250),
      units: 'mg/dL',
      sampleInterval: libre ? 900000 : 300000,
      deviceId: libre ? 'AbbottFreeStyleLibre-1' : 'DexG7-1',
      // The Tidepool uploader's fields: the device's clock and the zone it was in (a DST change inside).
      deviceTime: new Date(start + minute * MINUTE + (minute < 240 ? 60 : 120) * MINUTE).toISOString().slice(0, 19),
      timezoneOffset: minute < 240 ? 60 : 120,
      conversionOffset: 0,
      clockDriftOffset: -3000,
      ...(minute % 60 === 0 ? { trend: 'constant', trendRate: 0.4, trendRateUnits: 'mg/dL/minute' } : {}),
    });
  }
  return records;
}

/** Every optional field, in odd orders and with values jsonb normalises (numbers, unicode, nesting). */
const EVERY_FIELD = [
  {
    units: 'mmol/L',
    value: 5.55,
    time: '2024-04-02T06:00:00.123Z',
    type: 'cbg',
    id: '0123456789abcdef0123456789abcdef',
    deviceId: 'DexG6-123',
    deviceTime: '2024-04-02T08:00:00',
    timezone: 'Europe/Paris',
    timezoneOffset: 120,
    clockDriftOffset: 0,
    conversionOffset: -3600000,
    notes: ['après le café', 'zweiter "Test" \\ ☕'],
    tags: ['b', 'a'],
    source: 'carelink',
    origin: { version: '1.0', name: 'com.dexcom', id: 'egv-1', payload: { z: 1, a: [3, 2, 1.5, 1e2, -0.0] } },
    annotations: [{ code: 'bg/out-of-range', threshold: 40, value: 'low' }],
    associations: [{ type: 'url', url: 'https://example.org/x?y=1&z=2' }],
    location: { gps: { latitude: 48.85, longitude: 2.35, elevation: { value: 35, units: 'meters' } } },
    payload: { transmitterId: '8G1234', nested: { '10': 'ten', '2': 'two', b: null, a: true } },
    trend: 'slowRise',
    trendRate: 1.25,
    trendRateUnits: 'mmol/L/minute',
    sampleInterval: 300000,
    backfilled: true,
    uploadId: 'set-by-the-uploader',
  },
  {
    type: 'cbg',
    time: '2024-04-02T06:04:00Z',
    value: 101,
    units: 'mg/dl',
    id: 'zyxwvutsrqponmlkjihgfedcba987654',
    backfilled: false,
    trend: 'rapidFall',
    trendRate: -3.5,
    trendRateUnits: 'mg/dL/minute',
  },
  // Two readings of one instant, in the order of their ids.
  { type: 'cbg', time: '2024-04-02T06:05:00Z', value: 101, units: 'mg/dL', id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
  { type: 'cbg', time: '2024-04-02T06:05:00Z', value: 102, units: 'mg/dL', id: '00000000000000000000000000000001' },
  { type: 'cbg', time: '2024-04-02T06:06:00Z', value: 103, units: 'mg/dL' },
  { type: 'smbg', time: '2024-04-02T07:30:00Z', value: 6.4, units: 'mmol/L', subType: 'manual', deviceId: '=Contour' },
  { type: 'smbg', time: '2024-04-02T07:31:00Z', value: 0, units: 'mmol/l', subType: 'linked', timezone: 'Asia/Tokyo' },
  { type: 'smbg', time: '2024-04-02T07:32:00Z', value: 999, units: 'mg/dL', subType: 'scanned', timezoneOffset: -300 },
  { type: 'smbg', time: '2024-04-02T07:33:00+02:00', value: 55, units: 'mmol/L', tags: [], notes: [] },
];

/** An origin-deduplicated stream: egv-2 sent twice, the second replaces the first. */
const CONTINUOUS = [
  { type: 'cbg', time: '2024-04-03T00:00:00Z', value: 120, units: 'mg/dL', origin: { id: 'egv-1' } },
  { type: 'cbg', time: '2024-04-03T00:05:00Z', value: 121, units: 'mg/dL', origin: { id: 'egv-2' } },
  { type: 'cbg', time: '2024-04-03T00:10:00Z', value: 122, units: 'mg/dL', origin: { id: 'egv-3', name: 'x' } },
  { type: 'cbg', time: '2024-04-03T00:15:00Z', value: 123, units: 'mg/dL' },
];

const upload = (dataset: object, batches: object[][], close: boolean) =>
  uploadDataset(app, owner, dataset, batches, close);

/** Names for what the service draws: its ids in order of appearance, upload ids by dataset, created times. */
function normalised(text: string, datasets: Record<string, string>): string {
  const names = new Map<string, string>([
    ...Object.entries(datasets).map(([name, id]): [string, string] => [id, `<dataset ${name}>`]),
    [owner.userid, '<user>'],
  ]);
  const sent = new Set(EVERY_FIELD.map((record) => record.id));
  const name = (value: string) => {
    if (!names.has(value)) names.set(value, `<id ${names.size}>`);
    return names.get(value)!;
  };
  return (
    text
      .replace(/\b[0-9a-f]{32}\b/g, (id) => (sent.has(id) ? id : name(id)))
      .replace(/\b[0-9a-f]{10}\b/g, (id) => names.get(id) ?? id)
      // Every record is of 2024: a time of another year is one the service took from its clock.
      .replace(/\b(?!2024-)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<created>')
  );
}

let datasets: Record<string, string>;

beforeAll(async () => {
  app = await startTestApp();
  owner = await signUp(app, 'read-back');
  const records = trace();
  // The same device re-uploaded: a minute later than the trace, so no reading shares its instant
  // with one of a random id (their order would be random).
  const copies = records.slice(0, 30).map((record) => ({
    ...record,
    time: new Date(Date.parse((record as { time: string }).time) + MINUTE).toISOString(),
    deviceId: 'DexG7-2',
  }));
  const device = { deduplicator: { name: 'org.tidepool.deduplicator.device.deactivate.hash' }, deviceId: 'DexG7-2' };
  datasets = {
    none: await upload({ deduplicator: { name: 'org.tidepool.deduplicator.none' } }, [EVERY_FIELD], true),
    trace: await upload(
      { deduplicator: { name: 'org.tidepool.deduplicator.dataset.drop.hash' }, timezone: 'Europe/Berlin' },
      [records.slice(0, 300), records.slice(250)],
      true,
    ),
    earlier: await upload(device, [copies.slice(0, 20)], true),
    later: await upload(device, [copies.slice(10, 30)], true),
    open: await upload({ dataSetType: 'normal' }, [copies.slice(0, 5)], false),
    origin: await upload(
      { dataSetType: 'continuous' },
      [CONTINUOUS, [{ ...CONTINUOUS[1]!, value: 5.5, units: 'mmol/L' }]],
      false,
    ),
  };
}, 60_000);

afterAll(async () => {
  await app.stop();
});

describe('reading records back', () => {
  it('answers every record of every shape exactly as before', async () => {
    const answers = [];
    for (const path of [
      `/data/${owner.userid}`,
      `/data/${owner.userid}?type=smbg&startDate=2024-04-02T07:31:00Z&endDate=2024-04-02T07:33:00Z`,
      `/export/${owner.userid}?format=json&bgUnits=mmol/L`,
      `/export/${owner.userid}?format=csv&timeZone=America/New_York`,
    ]) {
      const reply = await call(app.url, path, { token: owner.token });
      expect(reply.status).toBe(200);
      answers.push(`${path.replace(owner.userid, '<user>')}\n${reply.text}`);
    }
    const text = `${normalised(answers.join('\n\n'), datasets)}\n`;
    if (process.env.GOLDEN === 'write') writeFileSync(GOLDEN, text);
    expect(text).toBe(readFileSync(GOLDEN, 'utf8'));
  });
});
