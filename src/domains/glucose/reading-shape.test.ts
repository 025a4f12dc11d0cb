import { describe, expect, it } from '@jest/globals';
import { parseGlucoseRecord } from './glucose-record';
import { deviceTimeOffset, readingUuid, shapeReadings } from './reading-shape';

const DATASET = 'd0000000000000000000000000000000';
const IDS = ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32), 'd'.repeat(32)];

const cbg = (time: string, extra: object = {}) =>
  parseGlucoseRecord(
    {
      type: 'cbg',
      time,
      value: 100,
      units: 'mg/dL',
      sampleInterval: 300000,
      timezoneOffset: 60,
      deviceId: 'G7',
      ...extra,
    },
    0,
  );

describe('reading shapes', () => {
  it('stores what a device repeats once, and keeps a reading’s own fields with it', () => {
    const { shapes, readings } = shapeReadings(
      [
        cbg('2024-03-31T00:55:00Z', {
          deviceTime: '2024-03-31T01:55:00',
          trend: 'constant',
          trendRate: 0.5,
          trendRateUnits: 'mg/dL/minute',
        }),
        cbg('2024-03-31T01:00:00Z', { deviceTime: '2024-03-31T03:00:00', timezoneOffset: 120 }),
        cbg('2024-03-31T01:05:00Z', { deviceTime: '2024-03-31T03:05:00', timezoneOffset: 120 }),
      ],
      IDS,
      [],
      DATASET,
    );
    expect(shapes).toEqual([
      {
        type: 'cbg',
        minutes: 5,
        deviceId: 'G7',
        fields: { sampleInterval: 300000, timezoneOffset: 60, trend: 'constant', trendRateUnits: 'mg/dL/minute' },
      },
      // The two readings at two hours from UTC keep their device times as that offset.
      { type: 'cbg', minutes: 5, deviceId: 'G7', fields: { sampleInterval: 300000, timezoneOffset: 120, '~dt': 7200 } },
    ]);
    expect(readings).toEqual([
      { shape: 0, uuid: IDS[0], own: '{"deviceTime":"2024-03-31T01:55:00","trendRate":0.5}' },
      { shape: 1, uuid: IDS[1], own: null },
      { shape: 1, uuid: IDS[2], own: null },
    ]);
  });

  it('keeps a record without fields of its own without any', () => {
    const { shapes, readings } = shapeReadings(
      [cbg('2024-03-31T00:55:00Z', { deviceId: undefined })],
      IDS,
      [],
      DATASET,
    );
    expect(shapes[0]!.deviceId).toBeNull();
    expect(readings[0]!.own).toBeNull();
  });

  it('stores a sent hex id as it is, and a sent id with other letters under its digest, kept whole', () => {
    const hex = '0123456789abcdef0123456789abcdef';
    const other = 'zyxwvutsrqponmlkjihgfedcba987654';
    const { readings } = shapeReadings(
      [cbg('2024-03-31T00:55:00Z', { id: hex }), cbg('2024-03-31T01:00:00Z', { id: other })],
      IDS,
      [],
      DATASET,
    );
    expect(readings.map((reading) => reading.uuid)).toEqual([hex, readingUuid(other)]);
    expect(readingUuid(other)).toMatch(/^[0-9a-f]{32}$/);
    expect(readings.map((reading) => reading.own)).toEqual([null, JSON.stringify({ '~id': other })]);
  });

  it('keeps an origin key per dataset for the origin deduplicator', () => {
    const records = [cbg('2024-03-31T00:55:00Z', { origin: { id: 'egv-1' } })];
    const [mine] = shapeReadings(records, IDS, ['egv-1'], DATASET).readings;
    const [theirs] = shapeReadings(records, IDS, ['egv-1'], 'e'.repeat(32)).readings;
    const key = (own: string | null) => (JSON.parse(own!) as Record<string, unknown>)['~k'];
    expect(JSON.parse(mine!.own!)).toMatchObject({ origin: { id: 'egv-1' } });
    expect(key(mine!.own)).toEqual(expect.any(String));
    expect(key(mine!.own)).not.toBe(key(theirs!.own));
    expect(shapeReadings(records, IDS, [], DATASET).readings[0]!.own).toBe('{"origin":{"id":"egv-1"}}');
  });
});

describe('device times', () => {
  it('keeps the offset a device’s readings share in their shape, and a device time of its own with its reading', () => {
    const records = [
      cbg('2024-03-31T00:55:00.250Z', { deviceTime: '2024-03-31T01:55:00' }),
      cbg('2024-03-31T01:00:00Z', { deviceTime: '2024-03-31T02:00:00' }),
      cbg('2024-03-31T01:05:00Z', { deviceTime: '2024-03-31T02:05:07' }),
    ];
    const { shapes, readings } = shapeReadings(records, IDS, [], DATASET);
    expect(shapes.map((shape) => shape.fields['~dt'])).toEqual([3600, undefined]);
    expect(readings.map((reading) => [reading.shape, reading.own])).toEqual([
      [0, null],
      [0, null],
      [1, '{"deviceTime":"2024-03-31T02:05:07"}'],
    ]);
  });

  it('writes back only what it was sent', () => {
    expect(deviceTimeOffset(cbg('2024-03-31T00:55:00.999Z', { deviceTime: '2024-03-30T20:55:00' }))).toBe(-14400);
    expect(deviceTimeOffset(cbg('2024-03-31T00:55:00Z', { deviceTime: '2024-02-30T20:55:00' }))).toBeNull();
    expect(deviceTimeOffset(cbg('2024-03-31T00:55:00Z'))).toBeNull();
    expect(deviceTimeOffset(cbg('1969-12-31T23:00:00Z', { deviceTime: '1969-12-31T23:00:00' }))).toBeNull();
  });
});
