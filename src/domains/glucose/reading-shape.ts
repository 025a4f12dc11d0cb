import { hash } from 'node:crypto';
import { HEX_ID32_PATTERN } from '../../kernel/ids';
import type { GlucoseRecord } from './glucose-record';

/**
 * How a reading is stored compactly: what its dataset's records repeat (type, device, minutes,
 * and the fields below) is a shape, stored once per dataset and shared by its readings; a
 * reading keeps its time, value, id and only the fields that are its own.
 */

/**
 * Fields that a device or upload session repeats on every record, or that take a handful of
 * values: sampling, time-zone and clock fields, the record's source and kind, the trend's name.
 * Each distinct combination in a dataset is one shape.
 */
export const SHAPE_FIELDS = [
  'sampleInterval',
  'timezone',
  'timezoneOffset',
  'clockDriftOffset',
  'conversionOffset',
  'source',
  'subType',
  'trend',
  'trendRateUnits',
  'backfilled',
  'uploadId',
] as const;

const SHAPE_FIELD_SET: ReadonlySet<string> = new Set(SHAPE_FIELDS);

/**
 * Keys a reading's own fields carry besides the record's, which no record field can be named
 * (records with unknown fields are refused): a sent id that is not hex, and the origin key.
 */
export const TEXT_ID_KEY = '~id';
export const ORIGIN_KEY = '~k';
/**
 * A shape's key for the seconds from its readings' time (whole seconds) to their `deviceTime`:
 * a device's clock stands at a fixed offset from UTC for long stretches, so its readings' device
 * times are written back from their times (`READING_COLUMNS` of readings.repository.ts) rather
 * than stored each.
 */
export const DEVICE_TIME_KEY = '~dt';

export interface ReadingShape {
  type: string;
  minutes: number;
  deviceId: string | null;
  fields: Record<string, unknown>;
}

export interface ShapedReading {
  /** Index of its shape in `shapes`. */
  shape: number;
  /** 32 hex digits: the record's id, or a digest of a sent id that is not hex. */
  uuid: string;
  /** The fields that are the reading's own, as JSON; null when it has none. */
  own: string | null;
}

/**
 * The shapes of an upload's records and each record's own part. `ids` are the ids the service
 * gives records that came without one, 32 lowercase hex digits (`hexIds`); `originKeys` the
 * origin deduplicator's keys (null for others), kept per dataset.
 */
export function shapeReadings(
  records: readonly GlucoseRecord[],
  ids: readonly string[],
  originKeys: readonly (string | null)[],
  datasetId: string,
): { shapes: ReadingShape[]; readings: ShapedReading[] } {
  const shapes: ReadingShape[] = [];
  const byKey = new Map<string, number>();
  const offsets = records.map(deviceTimeOffset);
  const uses = new Map<number, number>();
  for (const offset of offsets) if (offset !== null) uses.set(offset, (uses.get(offset) ?? 0) + 1);
  const readings = records.map((record, index): ShapedReading => {
    const shared: Record<string, unknown> = {};
    const own: Record<string, unknown> = {};
    // An offset no other record of the upload shares stays with its record: one shape each would cost more.
    const offset = (uses.get(offsets[index]!) ?? 0) > 1 ? offsets[index]! : null;
    // A loop over the keys, not Object.entries: no pair allocated per field of a thousand records.
    for (const field in record.fields) {
      if (field === 'id' || field === 'deviceId') continue;
      if (SHAPE_FIELD_SET.has(field)) shared[field] = record.fields[field];
      else if (field !== 'deviceTime' || offset === null) own[field] = record.fields[field];
    }
    if (offset !== null) shared[DEVICE_TIME_KEY] = offset;
    const sentId = record.fields.id as string | undefined;
    if (sentId !== undefined && !HEX_ID32_PATTERN.test(sentId)) own[TEXT_ID_KEY] = sentId;
    const originKey = originKeys[index];
    if (originKey != null) own[ORIGIN_KEY] = hash('md5', `${datasetId}|${originKey}`, 'base64');
    const key = JSON.stringify([record.type, record.minutes, record.deviceId, shared]);
    let shape = byKey.get(key);
    if (shape === undefined) {
      shape =
        shapes.push({ type: record.type, minutes: record.minutes, deviceId: record.deviceId, fields: shared }) - 1;
      byKey.set(key, shape);
    }
    return {
      shape,
      // The service's own ids are hex already; only a sent one needs looking at.
      uuid: sentId === undefined ? ids[index]! : readingUuid(sentId),
      own: Object.keys(own).length ? JSON.stringify(own) : null,
    };
  });
  return { shapes, readings };
}

const SECOND = 1000;

/**
 * The seconds from the record's time (whole seconds) to its `deviceTime`, when adding them back
 * writes exactly its `deviceTime` (years 1970 to 9999, as PostgreSQL's `to_char` writes them too);
 * null otherwise.
 */
export function deviceTimeOffset(record: GlucoseRecord): number | null {
  const deviceTime = record.fields.deviceTime;
  if (typeof deviceTime !== 'string') return null;
  const time = Math.floor(record.time.getTime() / SECOND) * SECOND;
  const offset = (Date.parse(`${deviceTime}Z`) - time) / SECOND;
  if (!Number.isInteger(offset) || time < 0) return null;
  const written = new Date(time + offset * SECOND).toISOString();
  return written.length === 24 && written.slice(0, 19) === deviceTime ? offset : null;
}

/**
 * The key a reading id is stored and ordered under: its 32 hex digits, or for a sent id with
 * other letters a digest of it (such an id is kept whole among the reading's own fields).
 */
export function readingUuid(id: string): string {
  return HEX_ID32_PATTERN.test(id) ? id : hash('md5', id, 'hex');
}
