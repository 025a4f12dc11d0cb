import { invalid } from '../../kernel/errors';
import { storableInstant } from '../../kernel/validation';
import { cgmMinutes } from './summary/minutes';
import { mgdlToMmol } from './summary/units';

/** A `cbg` or `smbg` record as stored: the value normalised to mmol/L, as Tidepool stores it. */
export interface GlucoseRecord {
  type: 'cbg' | 'smbg';
  time: Date;
  /** mmol/L, rounded to 5 decimals when it arrived in mg/dL. */
  value: number;
  deviceId: string | null;
  /** Minutes the reading stands for in summaries (0 for fingersticks). */
  minutes: number;
  originId: string | null;
  /** Everything else the uploader sent that Tidepool's data model knows, kept as sent. */
  fields: Record<string, unknown>;
}

const UNITS = { 'mmol/L': 'mmol', 'mmol/l': 'mmol', 'mg/dL': 'mg', 'mg/dl': 'mg' } as const;
const VALUE_LIMIT = { mmol: 55, mg: 1000 } as const;
const TRENDS = ['constant', 'slowFall', 'slowRise', 'moderateFall', 'moderateRise', 'rapidFall', 'rapidRise'];
const TREND_RATE_LIMIT: Record<string, number> = { 'mg/dL/minute': 100, 'mmol/L/minute': 5.5 };
const SUB_TYPES = ['linked', 'manual', 'scanned'];
const DEVICE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const RECORD_ID = /^[0-9a-z]{32}$/;

/**
 * The fields of Tidepool's base datum, glucose, cbg and smbg (docs/summaries.md, Upload records);
 * others are refused.
 */
const KNOWN = new Set([
  ...['type', 'time', 'deviceId', 'deviceTime', 'timezone', 'timezoneOffset', 'clockDriftOffset'],
  ...['conversionOffset', 'id', 'notes', 'tags', 'source', 'annotations', 'associations', 'location'],
  ...['origin', 'payload', 'units', 'value', 'trend', 'trendRate', 'trendRateUnits', 'sampleInterval'],
  ...['backfilled', 'subType', 'uploadId'],
]);

type Fields = Record<string, unknown>;

/** Checks one record of an upload; the error names the array index and the field. */
export function parseGlucoseRecord(input: unknown, index: number): GlucoseRecord {
  const fail = (field: string, rule: string) => invalid(`Record ${index}: ${field} ${rule}`, `[${index}].${field}`);
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw invalid(`Record ${index} must be a JSON object`, `[${index}]`);
  const record = input as Fields;
  for (const field in record) if (!KNOWN.has(field)) throw fail(field, 'is not a field of cbg or smbg records');
  if (record.type !== 'cbg' && record.type !== 'smbg') throw fail('type', 'must be cbg or smbg');
  const { time, value } = checkBase(record, fail);
  const kind = UNITS[record.units as keyof typeof UNITS];
  if (!kind) throw fail('units', `must be one of ${Object.keys(UNITS).join(', ')}`);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > VALUE_LIMIT[kind])
    throw fail('value', `must be a number from 0 to ${VALUE_LIMIT[kind]} ${record.units as string}`);
  if (record.type === 'cbg') checkContinuous(record, fail);
  else if (record.subType !== undefined && !SUB_TYPES.includes(record.subType as string))
    throw fail('subType', `must be one of ${SUB_TYPES.join(', ')}`);
  const deviceId = (record.deviceId as string | undefined) ?? null;
  const { type: _type, time: _time, value: _value, units: _units, ...fields } = record;
  return {
    type: record.type,
    time,
    value: kind === 'mg' ? mgdlToMmol(value) : value,
    deviceId,
    minutes:
      record.type === 'cbg' ? cgmMinutes({ sampleInterval: record.sampleInterval as number | undefined, deviceId }) : 0,
    originId: ((record.origin as Fields | undefined)?.id as string | undefined) ?? null,
    fields,
  };
}

type Fail = (field: string, rule: string) => Error;

const isObject = (value: unknown): value is Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const isListOfAtMost100 = (value: unknown) => Array.isArray(value) && value.length <= 100;
const integerWithin = (limit: number) => (value: unknown) =>
  Number.isInteger(value) && Math.abs(value as number) <= limit;
const strings = (value: unknown, length: number) =>
  Array.isArray(value) &&
  value.length <= 100 &&
  value.every((item) => typeof item === 'string' && item.length > 0 && item.length <= length);

/**
 * The optional base fields, each with its test and the rule its error states, in the order they
 * are checked. Built once: an upload checks a thousand records.
 */
const OPTIONAL_BASE: readonly [field: string, valid: (value: unknown) => boolean, rule: string][] = [
  [
    'deviceId',
    (value) => typeof value === 'string' && value.length > 0 && value.length <= 256,
    'must be a non-empty string',
  ],
  ['deviceTime', (value) => typeof value === 'string' && DEVICE_TIME.test(value), 'must be YYYY-MM-DDTHH:MM:SS'],
  ['timezone', (value) => typeof value === 'string' && isTimeZone(value), 'must be an IANA time zone name'],
  ['timezoneOffset', integerWithin(10080), 'must be whole minutes within ±10080'],
  ['clockDriftOffset', integerWithin(86_400_000), 'must be whole milliseconds within ±86400000'],
  ['conversionOffset', (value) => Number.isInteger(value), 'must be whole milliseconds'],
  ['id', (value) => typeof value === 'string' && RECORD_ID.test(value), 'must be 32 lowercase letters or digits'],
  ['notes', (value) => strings(value, 1000), 'must be at most 100 texts of at most 1000 characters'],
  [
    'tags',
    (value) => strings(value, 1000) && new Set(value as string[]).size === (value as string[]).length,
    'must be at most 100 distinct texts',
  ],
  ['source', (value) => value === 'carelink', 'must be carelink'],
  [
    'origin',
    (value) => isObject(value) && (value.id === undefined || (typeof value.id === 'string' && value.id.length > 0)),
    'must be an object whose id is a non-empty string',
  ],
  ['annotations', (value) => isListOfAtMost100(value), 'must be a list of at most 100 items'],
  ['associations', (value) => isListOfAtMost100(value), 'must be a list of at most 100 items'],
  ['location', isObject, 'must be an object'],
  ['payload', isObject, 'must be an object'],
  ['uploadId', (value) => typeof value === 'string', 'is set by the service'],
];

function checkBase(record: Fields, fail: Fail): { time: Date; value: unknown } {
  const time = typeof record.time === 'string' ? storableInstant(record.time) : undefined;
  if (!time) throw fail('time', 'must be an RFC 3339 date-time such as 2024-01-02T03:04:05Z');
  for (const [field, valid, rule] of OPTIONAL_BASE)
    if (record[field] !== undefined && !valid(record[field])) throw fail(field, rule);
  return { time, value: record.value };
}

function checkContinuous(record: Fields, fail: Fail): void {
  if (record.trend !== undefined && !TRENDS.includes(record.trend as string))
    throw fail('trend', `must be one of ${TRENDS.join(', ')}`);
  const hasRate = record.trendRate !== undefined;
  if (hasRate !== (record.trendRateUnits !== undefined))
    throw fail(hasRate ? 'trendRateUnits' : 'trendRate', 'goes together with trendRate and trendRateUnits');
  if (hasRate) {
    const limit = TREND_RATE_LIMIT[record.trendRateUnits as string];
    if (limit === undefined) throw fail('trendRateUnits', `must be one of ${Object.keys(TREND_RATE_LIMIT).join(', ')}`);
    if (typeof record.trendRate !== 'number' || Math.abs(record.trendRate) > limit)
      throw fail('trendRate', `must be a number within ±${limit} ${record.trendRateUnits as string}`);
  }
  if (
    record.sampleInterval !== undefined &&
    !(
      Number.isInteger(record.sampleInterval) &&
      (record.sampleInterval as number) >= 0 &&
      (record.sampleInterval as number) <= 86_400_000
    )
  )
    throw fail('sampleInterval', 'must be whole milliseconds from 0 to 86400000');
  if (record.backfilled !== undefined && typeof record.backfilled !== 'boolean')
    throw fail('backfilled', 'must be true or false');
}

/** IANA names the runtime's time zone data knows, aliases included. */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
