import { describe, expect, it } from '@jest/globals';
import { mgdlToMmol } from '../summary/units';
import {
  CBG_COLUMNS,
  CSV_COLUMNS,
  exportedReading,
  exportedUpload,
  readingCells,
  readingCsvCells,
  readingJson,
  readingRecord,
  SMBG_COLUMNS,
  uploadRow,
  type ExportedReading,
  type ExportRow,
} from './export-rows';

/** A row as an object by column. */
const rowOf = (reading: ExportedReading, columns: readonly string[]) => {
  const cells = readingCells(reading, columns);
  return Object.fromEntries(columns.map((column, index) => [column, cells[index]]));
};

const reading = (fields: Record<string, unknown>, overrides: Partial<ExportRow> = {}): ExportRow => ({
  id: 'a'.repeat(32),
  type: 'cbg',
  time: Date.parse('2024-03-10T09:30:00Z'),
  value: mgdlToMmol(140),
  datasetId: 'd'.repeat(32),
  deviceId: 'DexG6',
  fields,
  createdTime: Date.parse('2024-03-11T00:00:00Z'),
  ...overrides,
});

describe('an exported reading’s local time', () => {
  it('applies the record’s own offset before any zone', () => {
    const row = exportedReading(reading({ timezoneOffset: 330 }), 'mg/dL', 'America/New_York', { callerZone: 'UTC' });
    expect(row).toMatchObject({
      localTime: '2024-03-10T15:00:00',
      localTimeOffset: 330,
      localTimeSource: 'record-offset',
    });
  });

  it('uses the dataset’s zone at the reading’s own instant, across a DST change', () => {
    const before = exportedReading(
      reading({}, { time: Date.parse('2024-03-10T06:30:00Z') }),
      'mg/dL',
      'America/New_York',
      {},
    );
    const after = exportedReading(
      reading({}, { time: Date.parse('2024-03-10T07:30:00Z') }),
      'mg/dL',
      'America/New_York',
      {},
    );
    expect([before.localTime, before.localTimeOffset]).toEqual(['2024-03-10T01:30:00', -300]);
    expect([after.localTime, after.localTimeOffset, after.localTimeSource]).toEqual([
      '2024-03-10T03:30:00',
      -240,
      'dataset-zone',
    ]);
  });

  it('falls back to the caller’s zone, then the clinic’s, then UTC', () => {
    const bare = reading({});
    expect(
      exportedReading(bare, 'mg/dL', undefined, { callerZone: 'Asia/Kolkata', clinicZone: 'Europe/Paris' }),
    ).toMatchObject({
      localTime: '2024-03-10T15:00:00',
      localTimeSource: 'caller-zone',
    });
    expect(exportedReading(bare, 'mg/dL', undefined, { clinicZone: 'Asia/Kathmandu' })).toMatchObject({
      localTime: '2024-03-10T15:15:00',
      localTimeOffset: 345,
      localTimeSource: 'clinic-zone',
    });
    expect(exportedReading(bare, 'mg/dL', undefined, {})).toMatchObject({
      localTime: '2024-03-10T09:30:00',
      localTimeSource: 'utc',
    });
  });
});

describe('an exported reading’s value', () => {
  it('is the stored mmol/L in mmol/L, and × 18.01559 in mg/dL, unrounded to 1e-9', () => {
    const stored = reading({}, { value: 7.77105 });
    expect(exportedReading(stored, 'mmol/L', undefined, {})).toMatchObject({ value: 7.77105, units: 'mmol/L' });
    const mgdl = exportedReading(stored, 'mg/dL', undefined, {});
    expect(mgdl.units).toBe('mg/dL');
    expect(Math.abs(mgdl.value - 140.0000506695)).toBeLessThan(1e-9);
    expect(Math.abs(mgdl.value - 140)).toBeLessThan(18.01559 * 0.000005);
  });

  it('keeps the record’s own fields, Tidepool’s names, the upload id and the device', () => {
    const exported = exportedReading(reading({ trend: 'constant', sampleInterval: 300000 }), 'mmol/L', undefined, {});
    expect(readingRecord(exported)).toEqual({
      id: 'a'.repeat(32),
      type: 'cbg',
      time: '2024-03-10T09:30:00.000Z',
      value: mgdlToMmol(140),
      units: 'mmol/L',
      uploadId: 'd'.repeat(32),
      deviceId: 'DexG6',
      trend: 'constant',
      sampleInterval: 300000,
      createdTime: '2024-03-11T00:00:00.000Z',
      localTime: '2024-03-10T09:30:00',
      localTimeOffset: 0,
      localTimeSource: 'utc',
    });
    expect(readingRecord({ ...exported, deviceId: null })).not.toHaveProperty('deviceId');
    expect(JSON.parse(readingJson(exported))).toEqual(readingRecord(exported));
    const bare = { ...exported, deviceId: null, fields: {} };
    expect(JSON.parse(readingJson(bare))).toEqual(readingRecord(bare));
    const stamped = { ...exported, fields: { uploadId: 'theirs', trend: 'constant' } };
    expect(JSON.parse(readingJson(stamped))).toMatchObject({ uploadId: 'd'.repeat(32), trend: 'constant' });
  });
});

describe('table rows', () => {
  it('give each reading its columns and the rest of its fields as JSON', () => {
    const exported = exportedReading(
      reading({ trend: 'slowRise', backfilled: true, notes: ['after lunch'], payload: { a: 1 } }),
      'mmol/L',
      undefined,
      {},
    );
    const row = rowOf(exported, CBG_COLUMNS);
    expect(row).toMatchObject({
      trend: 'slowRise',
      backfilled: true,
      value: 7.77105,
      units: 'mmol/L',
      deviceId: 'DexG6',
    });
    expect(JSON.parse(row.otherFields as string)).toEqual({ notes: ['after lunch'], payload: { a: 1 } });
    const smbgReading = exportedReading(reading({ subType: 'manual' }, { type: 'smbg' }), 'mg/dL', undefined, {});
    expect(rowOf(smbgReading, SMBG_COLUMNS)).toMatchObject({ subType: 'manual', otherFields: null });
    const csv = readingCsvCells(smbgReading);
    expect(csv).toHaveLength(CSV_COLUMNS.length);
    expect(csv[CSV_COLUMNS.indexOf('type')]).toBe('smbg');
    expect(csv[CSV_COLUMNS.indexOf('subType')]).toBe('manual');
    expect(csv[CSV_COLUMNS.indexOf('sampleInterval')]).toBeNull();
  });

  it('give an upload its device, client and zone, lists joined with |', () => {
    const upload = exportedUpload({
      id: 'd'.repeat(32),
      userId: 'u',
      dataSetType: 'normal',
      state: 'closed',
      deduplicator: 'org.tidepool.deduplicator.none',
      deviceId: 'DexG6',
      details: {
        client: { name: 'org.tidepool.uploader', version: '2.60.0' },
        deviceManufacturers: ['Dexcom', 'Other'],
        deviceModel: 'G6',
        deviceSerialNumber: 'SN1',
        timezone: 'Europe/Paris',
        time: '2024-03-02T08:00:00Z',
      },
      createdUserId: null,
      createdTime: new Date('2024-03-02T08:00:01Z'),
      modifiedTime: null,
    });
    expect(upload).toMatchObject({ type: 'upload', uploadId: 'd'.repeat(32), timezone: 'Europe/Paris' });
    expect(uploadRow(upload)).toMatchObject({
      type: 'upload',
      deviceManufacturers: 'Dexcom|Other',
      deviceModel: 'G6',
      deviceSerialNumber: 'SN1',
      clientName: 'org.tidepool.uploader',
      clientVersion: '2.60.0',
      timezone: 'Europe/Paris',
      time: '2024-03-02T08:00:00Z',
      createdTime: '2024-03-02T08:00:01.000Z',
    });
  });
});
