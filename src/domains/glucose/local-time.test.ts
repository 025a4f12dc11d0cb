import { describe, expect, it } from '@jest/globals';
import { localMinuteOfDay, localOffset } from './local-time';

const at = (iso: string) => Date.parse(iso);

describe('a reading’s local offset', () => {
  it('is the record’s own offset first, even when every zone is known', () => {
    const hints = { recordOffset: 330, recordZone: 'Europe/Paris', datasetZone: 'America/Denver', clinicZone: 'UTC' };
    expect(localOffset(at('2024-07-01T00:00:00Z'), hints)).toEqual({ minutes: 330, source: 'record-offset' });
  });

  it('follows each record’s offset when the offsets change mid-period (a trip)', () => {
    const home = localOffset(at('2024-07-01T12:00:00Z'), { recordOffset: -300, datasetZone: 'Asia/Tokyo' });
    const away = localOffset(at('2024-07-02T12:00:00Z'), { recordOffset: 540, datasetZone: 'Asia/Tokyo' });
    expect([home.minutes, away.minutes]).toEqual([-300, 540]);
  });

  it('falls back to the record’s zone, then the dataset’s, the caller’s, the clinic’s, then UTC', () => {
    const time = at('2024-01-15T12:00:00Z');
    const all = {
      recordZone: 'Asia/Kolkata',
      datasetZone: 'Europe/Paris',
      callerZone: 'Asia/Tokyo',
      clinicZone: 'America/Denver',
    };
    expect(localOffset(time, all)).toEqual({ minutes: 330, source: 'record-zone' });
    expect(localOffset(time, { ...all, recordZone: undefined })).toEqual({ minutes: 60, source: 'dataset-zone' });
    expect(localOffset(time, { callerZone: 'Asia/Tokyo', clinicZone: 'America/Denver' })).toEqual({
      minutes: 540,
      source: 'caller-zone',
    });
    expect(localOffset(time, { clinicZone: 'America/Denver' })).toEqual({ minutes: -420, source: 'clinic-zone' });
    expect(localOffset(time, {})).toEqual({ minutes: 0, source: 'utc' });
  });

  it('passes over zone names nobody knows and offsets that are not whole minutes', () => {
    const hints = { recordOffset: 90.5, recordZone: 'Nowhere/Land', datasetZone: 'Asia/Kathmandu' };
    expect(localOffset(at('2024-01-15T12:00:00Z'), hints)).toEqual({ minutes: 345, source: 'dataset-zone' });
    expect(localOffset(0, { recordOffset: '60', clinicZone: '' })).toEqual({ minutes: 0, source: 'utc' });
  });

  it('honours a DST change inside a period for readings without offsets', () => {
    const hints = { datasetZone: 'Europe/Berlin' };
    // 2024-03-31 02:00 CET became 03:00 CEST at 01:00 UTC.
    expect(localOffset(at('2024-03-31T00:55:00Z'), hints).minutes).toBe(60);
    expect(localOffset(at('2024-03-31T01:00:00Z'), hints).minutes).toBe(120);
  });
});

describe('the local minute of the day', () => {
  it('wraps around midnight both ways', () => {
    expect(localMinuteOfDay(at('2024-01-01T23:50:00Z'), 30)).toBe(20);
    expect(localMinuteOfDay(at('2024-01-01T00:10:00Z'), -30)).toBe(1420);
    expect(localMinuteOfDay(at('2024-01-01T10:14:59Z'), 345)).toBe(15 * 60 + 59);
  });

  it('puts the readings either side of a spring-forward change an hour apart in local time', () => {
    const before = at('2024-03-10T06:55:00Z');
    const after = at('2024-03-10T07:00:00Z');
    expect(localMinuteOfDay(before, -300)).toBe(1 * 60 + 55);
    expect(localMinuteOfDay(after, -240)).toBe(3 * 60);
  });
});
