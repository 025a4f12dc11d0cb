import { invalid } from '../../kernel/errors';
import { isStorableDateTime } from '../../kernel/validation';

/** How duplicates in an upload are recognised (docs/summaries.md, Upload records). */
export const DEDUPLICATORS = {
  'org.tidepool.deduplicator.none': 'none',
  'org.tidepool.deduplicator.dataset.drop.hash': 'dataset-hash',
  'org.tidepool.deduplicator.device.deactivate.hash': 'device-hash',
  'org.tidepool.deduplicator.dataset.delete.origin': 'origin',
} as const;
export type DeduplicatorName = keyof typeof DEDUPLICATORS;
export type Deduplication = (typeof DEDUPLICATORS)[DeduplicatorName];

export const DATASET_TYPES = ['normal', 'continuous'] as const;
export type DatasetType = (typeof DATASET_TYPES)[number];

/** What an uploader says about an upload session when it opens one. */
export interface DatasetFields {
  dataSetType: DatasetType;
  deduplicator: DeduplicatorName;
  /** The remaining fields Tidepool's dataset knows, kept as sent and answered back. */
  details: Record<string, unknown>;
}

const DEVICE_TAGS = ['activity-monitor', 'bgm', 'cgm', 'insulin-pump'];
const TIME_PROCESSING = ['across-the-board-timezone', 'none', 'utc-bootstrapping'];

type Fields = Record<string, unknown>;
const text = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= 1000;
const texts = (value: unknown) => Array.isArray(value) && value.length <= 100 && value.every(text);
const isObject = (value: unknown): value is Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Each accepted field and the rule its value follows; anything else is refused. */
const RULES: Record<string, [(value: unknown) => boolean, string]> = {
  client: [
    (value) =>
      isObject(value) &&
      text(value.name) &&
      (value.version === undefined || text(value.version)) &&
      (value.private === undefined || isObject(value.private)) &&
      Object.keys(value).every((key) => ['name', 'version', 'private'].includes(key)),
    'must be an object with a name, and optionally version and private',
  ],
  dataSetType: [(value) => DATASET_TYPES.includes(value as DatasetType), 'must be normal or continuous'],
  deduplicator: [
    (value) => isObject(value) && Object.keys(value).length === 1 && (value.name as string) in DEDUPLICATORS,
    `must be { "name": <one of ${Object.keys(DEDUPLICATORS).join(', ')}> }`,
  ],
  deviceId: [text, 'must be a non-empty string'],
  deviceManufacturers: [texts, 'must be a list of non-empty strings'],
  deviceModel: [text, 'must be a non-empty string'],
  deviceSerialNumber: [text, 'must be a non-empty string'],
  deviceTags: [
    (value) => Array.isArray(value) && value.length > 0 && value.every((tag) => DEVICE_TAGS.includes(tag as string)),
    `must list some of ${DEVICE_TAGS.join(', ')}`,
  ],
  time: [(value) => typeof value === 'string' && isStorableDateTime(value), 'must be an RFC 3339 date-time'],
  computerTime: [
    (value) => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(value),
    'must be YYYY-MM-DDTHH:MM:SS',
  ],
  timeProcessing: [
    (value) => TIME_PROCESSING.includes(value as string),
    `must be one of ${TIME_PROCESSING.join(', ')}`,
  ],
  timezone: [text, 'must be an IANA time zone name'],
  timezoneOffset: [
    (value) => Number.isInteger(value) && Math.abs(value as number) <= 10080,
    'must be whole minutes within ±10080',
  ],
  conversionOffset: [(value) => Number.isInteger(value), 'must be whole milliseconds'],
  clockDriftOffset: [
    (value) => Number.isInteger(value) && Math.abs(value as number) <= 86_400_000,
    'must be whole milliseconds within ±86400000',
  ],
  version: [
    (value) => typeof value === 'string' && value.length >= 5 && value.length <= 100,
    'must be 5 to 100 characters',
  ],
  type: [(value) => value === 'upload', 'must be upload'],
};

/**
 * Checks the body that opens a dataset. A normal dataset deduplicates nothing unless told; a
 * continuous one replaces records by `origin.id`, as Tidepool advises continuous uploaders.
 */
export function parseDatasetFields(body: unknown): DatasetFields {
  if (!isObject(body)) throw invalid('The dataset must be a JSON object', 'body');
  for (const [field, value] of Object.entries(body)) {
    const rule = RULES[field];
    if (!rule) throw invalid(`${field} is not a field of a dataset`, field);
    if (!rule[0](value)) throw invalid(`${field} ${rule[1]}`, field);
  }
  const { dataSetType = 'normal', deduplicator, type: _type, ...details } = body;
  const type = dataSetType as DatasetType;
  const name = (deduplicator as { name?: DeduplicatorName } | undefined)?.name;
  return {
    dataSetType: type,
    deduplicator:
      name ??
      (type === 'continuous' ? 'org.tidepool.deduplicator.dataset.delete.origin' : 'org.tidepool.deduplicator.none'),
    details,
  };
}
