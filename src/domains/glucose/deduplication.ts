import type { Deduplication } from './dataset-fields';
import type { GlucoseRecord } from './glucose-record';

/** What a record's key is made of besides the record itself: its upload, and the upload's device. */
export interface DatasetIdentity {
  datasetId: string;
  deviceId: string | null;
}

/**
 * The key under which a record counts once in its request (null: it always counts), by the
 * dataset's deduplicator: what Tidepool's hash is made of (the upload or device, time, type and
 * value; user and units are the same for every record of a request); or the uploader's own
 * `origin.id`. Kept as text, not hashed: it lives only for the request (copies of readings
 * already stored are found by `dropCopies` in SQL), and a SHA-256 per record was a tenth of an
 * upload's CPU. The device id goes last: the parts before it hold no `|`, so two keys are equal
 * only when every part is.
 */
export function deduplicationKey(record: GlucoseRecord, dataset: DatasetIdentity, mode: Deduplication): string | null {
  if (mode === 'none') return null;
  if (mode === 'origin') return record.originId;
  const source = mode === 'dataset-hash' ? dataset.datasetId : (record.deviceId ?? dataset.deviceId ?? '');
  return `${record.time.getTime()}|${record.type}|${record.value}|${source}`;
}

/** Within one request the last of several records with one key wins, as in Tidepool. */
export function lastOfEachKey<T>(records: readonly T[], keys: readonly (string | null)[]): T[] {
  const lastIndex = new Map<string, number>();
  keys.forEach((key, index) => key !== null && lastIndex.set(key, index));
  return records.filter((_, index) => keys[index] === null || lastIndex.get(keys[index]!) === index);
}

/**
 * An upload's kept records in the order its insert takes them. Uploads to one dataset run side by
 * side, and one waits on a key another inserted first: in one order of keys for all, two never
 * wait on each other in turn (a deadlock). A hash key is made of its record's time, so time then
 * key is such an order, and keeps the rows in time order on disk; an origin id may come with any
 * time, so those go by key alone.
 */
export function inInsertOrder<T extends { record: GlucoseRecord; key: string | null }>(
  entries: readonly T[],
  mode: Deduplication,
): readonly T[] {
  if (mode === 'none') return entries;
  const byKey = (a: T, b: T) => (a.key! < b.key! ? -1 : a.key! > b.key! ? 1 : 0);
  if (mode === 'origin') return entries.toSorted(byKey);
  return entries.toSorted((a, b) => a.record.time.getTime() - b.record.time.getTime() || byKey(a, b));
}

/**
 * The records of one request that count, in their insert order (`inInsertOrder`), each with its
 * origin deduplicator's key (null under the others). A function of its own so that the request's
 * keys and intermediate lists are garbage before its statements run: an upload holds its
 * thousand records through its transaction, and what it holds besides is copied by every
 * collection of the young generation meanwhile.
 */
export function keptRecords(
  records: readonly GlucoseRecord[],
  dataset: DatasetIdentity,
  mode: Deduplication,
): { records: GlucoseRecord[]; originKeys: (string | null)[] } {
  const keys = records.map((record) => deduplicationKey(record, dataset, mode));
  const entries = records.map((record, index) => ({ record, key: keys[index]! }));
  const kept = inInsertOrder(lastOfEachKey(entries, keys), mode);
  return {
    records: kept.map(({ record }) => record),
    originKeys: kept.map(({ key }) => (mode === 'origin' ? key : null)),
  };
}
