import type { DatasetRecord } from '../dataset.entity';
import type { StoredReading } from '../glucose.loaders';
import type { LocalTimeHints } from '../local-time';
import { localTimeOf, recordHints, type ZoneFallbacks } from '../local-time.service';
import { fromMmol, type GlucoseUnits } from '../summary/units';

/** The units an export states, as Tidepool's export service spells them. */
export type ExportUnits = 'mg/dL' | 'mmol/L';
const GLUCOSE_UNITS: Record<ExportUnits, GlucoseUnits> = { 'mg/dL': 'MG_DL', 'mmol/L': 'MMOL_L' };

/** A cell of a table (CSV, a workbook's sheet); null is an empty cell. */
export type Cell = string | number | boolean | null;
export type TableRow = Record<string, Cell>;

/** The columns every reading has, then those of each type; what remains of a record is in `otherFields`. */
const READING_COLUMNS = [
  ...['id', 'time', 'localTime', 'localTimeOffset', 'localTimeSource', 'value', 'units', 'uploadId', 'deviceId'],
  ...['deviceTime', 'timezone', 'timezoneOffset'],
] as const;
export const CBG_COLUMNS = [
  ...READING_COLUMNS,
  ...['trend', 'trendRate', 'trendRateUnits', 'sampleInterval', 'backfilled', 'otherFields'],
];
export const SMBG_COLUMNS = [...READING_COLUMNS, 'subType', 'otherFields'];
export const UPLOAD_COLUMNS = [
  ...['id', 'time', 'createdTime', 'dataSetType', 'deviceId', 'deviceManufacturers', 'deviceModel'],
  ...['deviceSerialNumber', 'deviceTags', 'clientName', 'clientVersion', 'timezone', 'timezoneOffset', 'version'],
];
/** The one CSV table: a `type` column (cbg, smbg, upload), then every column of the three kinds once. */
export const CSV_COLUMNS = ['type', ...new Set([...CBG_COLUMNS, ...SMBG_COLUMNS, ...UPLOAD_COLUMNS])];

/** Fields with columns of their own (or set by the export), left out of `otherFields`. */
const COLUMNED = new Set<string>([...CBG_COLUMNS, ...SMBG_COLUMNS, 'type', 'createdTime']);

/** A record as Tidepool's data model writes it, plus where its local time came from. */
export type ExportedReading = Record<string, unknown> & {
  id: string;
  type: string;
  time: string;
  value: number;
  units: ExportUnits;
  uploadId: string;
  localTime: string;
  localTimeOffset: number;
  localTimeSource: string;
};

/**
 * One stored reading for the export: its own fields as uploaded, its value in `units` (stored in
 * mmol/L; not rounded), and its local time by the rule of local-time.ts with its dataset's zone.
 */
export function exportedReading(
  reading: StoredReading,
  units: ExportUnits,
  datasetZone: LocalTimeHints['datasetZone'],
  fallbacks: ZoneFallbacks,
): ExportedReading {
  const local = localTimeOf(reading.time, { ...recordHints(reading.fields), datasetZone, ...fallbacks });
  return {
    ...reading.fields,
    id: reading.id,
    type: reading.type,
    time: reading.time.toISOString(),
    value: fromMmol(reading.value, GLUCOSE_UNITS[units]),
    units,
    uploadId: reading.datasetId,
    ...(reading.deviceId ? { deviceId: reading.deviceId } : {}),
    createdTime: reading.createdTime.toISOString(),
    localTime: local.localTime,
    localTimeOffset: local.minutes,
    localTimeSource: local.source,
  };
}

/** A dataset as Tidepool's `upload` datum: what the uploader said of it, its id as `uploadId`. */
export function exportedUpload(dataset: DatasetRecord): Record<string, unknown> {
  return {
    ...dataset.details,
    id: dataset.id,
    type: 'upload',
    uploadId: dataset.id,
    dataSetType: dataset.dataSetType,
    dataState: dataset.state,
    deduplicator: { name: dataset.deduplicator },
    ...(dataset.deviceId ? { deviceId: dataset.deviceId } : {}),
    createdTime: dataset.createdTime.toISOString(),
  };
}

const cell = (value: unknown): Cell => {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
};

/** A reading as a table row: its columns, and the fields without one as JSON in `otherFields`. */
export function readingRow(reading: ExportedReading): TableRow {
  const others = Object.entries(reading).filter(([name]) => !COLUMNED.has(name));
  const row: TableRow = { type: reading.type };
  for (const column of reading.type === 'cbg' ? CBG_COLUMNS : SMBG_COLUMNS) row[column] = cell(reading[column]);
  row.otherFields = others.length ? JSON.stringify(Object.fromEntries(others)) : null;
  return row;
}

/** A dataset as a table row; lists are joined with `|`. */
export function uploadRow(upload: Record<string, unknown>): TableRow {
  const list = (value: unknown) => (Array.isArray(value) ? value.join('|') : null);
  const client = (upload.client ?? {}) as { name?: string; version?: string };
  const row: TableRow = { type: 'upload' };
  for (const column of UPLOAD_COLUMNS) row[column] = cell(upload[column]);
  Object.assign(row, {
    deviceManufacturers: list(upload.deviceManufacturers),
    deviceTags: list(upload.deviceTags),
    clientName: client.name ?? null,
    clientVersion: client.version ?? null,
  });
  return row;
}

/** Characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell a spreadsheet shows as text: one starting like a formula gets a leading `'`. */
export const formulaSafe = (value: Cell): Cell =>
  typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : value;
