import { createHash } from 'node:crypto';
import type { Deduplication } from './dataset-fields';
import type { GlucoseRecord } from './glucose-record';

/** What a record's identity for deduplication is made of besides the record itself. */
export interface DatasetIdentity {
  userId: string;
  datasetId: string;
  deviceId: string | null;
}

/**
 * The key under which a record counts once (null: it always counts), by the dataset's
 * deduplicator: Tidepool's hash of user, upload (or device), time, type, units and value; or
 * the uploader's own `origin.id`.
 */
export function deduplicationKey(record: GlucoseRecord, dataset: DatasetIdentity, mode: Deduplication): string | null {
  if (mode === 'none') return null;
  if (mode === 'origin') return record.originId;
  const source = mode === 'dataset-hash' ? dataset.datasetId : (record.deviceId ?? dataset.deviceId ?? '');
  const parts = [dataset.userId, source, record.time.toISOString(), record.type, 'mmol/L', String(record.value)];
  return createHash('sha256').update(parts.join('|')).digest('base64');
}

/** Within one request the last of several records with one key wins, as in Tidepool. */
export function lastOfEachKey<T>(records: readonly T[], keys: readonly (string | null)[]): T[] {
  const lastIndex = new Map<string, number>();
  keys.forEach((key, index) => key !== null && lastIndex.set(key, index));
  return records.filter((_, index) => keys[index] === null || lastIndex.get(keys[index]!) === index);
}
