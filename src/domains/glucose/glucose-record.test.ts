import { describe, expect, it } from '@jest/globals';
import { parseGlucoseRecord } from './glucose-record';

const CBG = {
  type: 'cbg',
  time: '2017-02-05T13:26:51.000Z',
  deviceId: 'MMT-1711:12345678',
  value: 119,
  units: 'mg/dL',
  sampleInterval: 300000,
  timezoneOffset: 660,
};

describe('glucose records of an upload', () => {
  it('normalises mg/dL to mmol/L and credits minutes from the sample interval', () => {
    const record = parseGlucoseRecord(CBG, 0);
    expect(record).toMatchObject({ type: 'cbg', value: 6.60539, deviceId: 'MMT-1711:12345678', minutes: 5 });
    expect(record.time.toISOString()).toBe('2017-02-05T13:26:51.000Z');
    expect(record.fields).toEqual({ deviceId: 'MMT-1711:12345678', sampleInterval: 300000, timezoneOffset: 660 });
  });

  it('keeps mmol/L values as sent and gives fingersticks no minutes', () => {
    const record = parseGlucoseRecord(
      { type: 'smbg', time: '2024-01-01T08:00:00Z', value: 5.5, units: 'mmol/l', subType: 'manual' },
      3,
    );
    expect(record).toMatchObject({ type: 'smbg', value: 5.5, minutes: 0 });
  });

  it.each([
    [{ ...CBG, type: 'basal' }, '[4].type'],
    [{ ...CBG, time: '2017-02-30T13:26:51Z' }, '[4].time'],
    [{ ...CBG, units: 'mmol' }, '[4].units'],
    [{ ...CBG, value: 1001 }, '[4].value'],
    [{ ...CBG, units: 'mmol/L', value: 55.1 }, '[4].value'],
    [{ ...CBG, value: '119' }, '[4].value'],
    [{ ...CBG, trend: 'up' }, '[4].trend'],
    [{ ...CBG, trendRate: 1 }, '[4].trendRateUnits'],
    [{ ...CBG, trendRate: 6, trendRateUnits: 'mmol/L/minute' }, '[4].trendRate'],
    [{ ...CBG, sampleInterval: 86_400_001 }, '[4].sampleInterval'],
    [{ ...CBG, timezoneOffset: 10081 }, '[4].timezoneOffset'],
    [{ ...CBG, timezone: 'Mars/Olympus' }, '[4].timezone'],
    [{ ...CBG, deviceTime: '2017-02-05 13:26:51' }, '[4].deviceTime'],
    [{ ...CBG, tags: ['a', 'a'] }, '[4].tags'],
    [{ ...CBG, source: 'dexcom' }, '[4].source'],
    [{ ...CBG, insulin: 3 }, '[4].insulin'],
    [{ type: 'smbg', time: CBG.time, value: 5, units: 'mmol/L', subType: 'guessed' }, '[4].subType'],
    ['a reading', '[4]'],
  ])('refuses a bad field and names the index and the field: %o', (record, field) => {
    expect(() => parseGlucoseRecord(record, 4)).toThrow(
      expect.objectContaining({ code: 'INVALID', details: { field } }),
    );
  });

  it('accepts legacy time zone aliases', () => {
    expect(parseGlucoseRecord({ ...CBG, timezone: 'US/Eastern' }, 0).fields.timezone).toBe('US/Eastern');
  });
});
