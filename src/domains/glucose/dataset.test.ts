import { describe, expect, it } from '@jest/globals';
import { parseDatasetFields } from './dataset-fields';
import { deduplicationKey, keptRecords, lastOfEachKey } from './deduplication';
import { parseGlucoseRecord } from './glucose-record';

describe('opening a dataset', () => {
  it('takes Tidepool’s uploader fields and names the deduplicator', () => {
    const fields = parseDatasetFields({
      type: 'upload',
      client: { name: 'org.tidepool.uploader', version: '2.60.0' },
      deduplicator: { name: 'org.tidepool.deduplicator.dataset.drop.hash' },
      deviceId: 'DexG6-123',
      deviceTags: ['cgm'],
      time: '2024-01-01T00:00:00Z',
      computerTime: '2024-01-01T00:00:00',
      timezone: 'Europe/Paris',
      version: '2.60.0',
    });
    expect(fields.dataSetType).toBe('normal');
    expect(fields.deduplicator).toBe('org.tidepool.deduplicator.dataset.drop.hash');
    expect(fields.details).toMatchObject({ deviceId: 'DexG6-123', version: '2.60.0' });
  });

  it('deduplicates continuous datasets by origin unless told otherwise', () => {
    expect(parseDatasetFields({ dataSetType: 'continuous' }).deduplicator).toBe(
      'org.tidepool.deduplicator.dataset.delete.origin',
    );
    expect(parseDatasetFields({}).deduplicator).toBe('org.tidepool.deduplicator.none');
  });

  it.each([
    [{ dataSetType: 'weekly' }, 'dataSetType'],
    [{ deduplicator: { name: 'org.tidepool.deduplicator.device.truncate.dataset' } }, 'deduplicator'],
    [{ deviceTags: ['toaster'] }, 'deviceTags'],
    [{ version: '1.0' }, 'version'],
    [{ client: { version: '1' } }, 'client'],
    [{ time: 'yesterday' }, 'time'],
    [{ dataState: 'open' }, 'dataState'],
  ])('refuses %o naming the field', (body, field) => {
    expect(() => parseDatasetFields(body)).toThrow(expect.objectContaining({ details: { field } }));
  });
});

describe('deduplication keys', () => {
  const dataset = { datasetId: 'a'.repeat(32), deviceId: 'Dex-1' };
  const reading = (value: number, extra: object = {}) =>
    parseGlucoseRecord({ type: 'cbg', time: '2024-01-01T00:00:00Z', value, units: 'mg/dL', ...extra }, 0);

  it('keys the same reading alike, and a different value, type, time or source apart', () => {
    const key = deduplicationKey(reading(120), dataset, 'dataset-hash');
    expect(key).toBe(deduplicationKey(reading(120), dataset, 'dataset-hash'));
    expect(key).not.toBe(deduplicationKey(reading(121), dataset, 'dataset-hash'));
    expect(key).not.toBe(deduplicationKey(reading(120), { ...dataset, datasetId: 'b'.repeat(32) }, 'dataset-hash'));
    expect(deduplicationKey(reading(120), { ...dataset, datasetId: 'b'.repeat(32) }, 'device-hash')).toBe(
      deduplicationKey(reading(120), dataset, 'device-hash'),
    );
    expect(deduplicationKey(reading(120), dataset, 'none')).toBeNull();
    const smbg = parseGlucoseRecord({ type: 'smbg', time: '2024-01-01T00:00:00Z', value: 120, units: 'mg/dL' }, 0);
    expect(deduplicationKey(smbg, dataset, 'dataset-hash')).not.toBe(key);
    expect(deduplicationKey(reading(120, { time: '2024-01-01T00:00:00.001Z' }), dataset, 'dataset-hash')).not.toBe(key);
    const onDevice = (deviceId: string) => deduplicationKey(reading(120, { deviceId }), dataset, 'device-hash');
    expect(onDevice('pump-1')).not.toBe(onDevice('pump-2'));
  });

  it('keeps the last of each key, in time order, with origin keys only under the origin deduplicator', () => {
    const at = (time: string, value: number, extra: object = {}) =>
      parseGlucoseRecord({ type: 'cbg', time, value, units: 'mg/dL', ...extra }, 0);
    const late = at('2024-01-01T00:10:00Z', 100, { origin: { id: 'a' } });
    const early = at('2024-01-01T00:05:00Z', 110, { origin: { id: 'b' } });
    const lateAgain = at('2024-01-01T00:10:00Z', 100, { origin: { id: 'c' } });
    const hashed = keptRecords([late, early, lateAgain], dataset, 'dataset-hash');
    expect(hashed.records).toEqual([early, lateAgain]);
    expect(hashed.originKeys).toEqual([null, null]);
    const byOrigin = keptRecords([late, early, lateAgain], dataset, 'origin');
    expect(byOrigin.originKeys).toEqual(['a', 'b', 'c']);
    expect(keptRecords([late, late], dataset, 'none').records).toEqual([late, late]);
  });

  it('keys by origin id, and keeps the last of a request’s duplicates', () => {
    const records = [reading(100, { origin: { id: 'x' } }), reading(110), reading(120, { origin: { id: 'x' } })];
    const keys = records.map((record) => deduplicationKey(record, dataset, 'origin'));
    expect(keys).toEqual(['x', null, 'x']);
    expect(lastOfEachKey(records, keys).map((record) => record.value)).toEqual([records[1]!.value, records[2]!.value]);
  });
});
