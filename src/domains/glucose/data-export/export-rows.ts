import type { DatasetRecord } from '../dataset.entity';
import { isoDateTime, localDateTime } from '../../../kernel/time-zones';
import { localOffset, type LocalTimeHints } from '../local-time';
import type { ZoneFallbacks } from '../local-time.service';
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

/**
 * A stored reading as the export reads it: times as epoch milliseconds (no Date per value), its
 * record's fields as uploaded.
 */
export interface ExportRow {
  id: string;
  type: string;
  time: number;
  /** mmol/L. */
  value: number;
  datasetId: string;
  deviceId: string | null;
  fields: Record<string, unknown>;
  createdTime: number;
}

/**
 * A reading ready to write: what the export computes (one shape for all, which keeps a year of
 * them cheap), and the record's own fields as uploaded.
 */
export interface ExportedReading {
  id: string;
  type: string;
  time: string;
  value: number;
  units: ExportUnits;
  uploadId: string;
  deviceId: string | null;
  /** RFC 3339 (toISOString's form); only the JSON writes it. */
  createdTime: string;
  localTime: string;
  localTimeOffset: number;
  localTimeSource: string;
  fields: Record<string, unknown>;
}

/**
 * One stored reading for the export: its value in `units` (stored in mmol/L; not rounded), and
 * its local time by the rule of local-time.ts with its dataset's zone.
 */
export function exportedReading(
  row: ExportRow,
  units: ExportUnits,
  datasetZone: LocalTimeHints['datasetZone'],
  fallbacks: ZoneFallbacks,
): ExportedReading {
  const { fields } = row;
  const local = localOffset(row.time, {
    recordOffset: fields.timezoneOffset,
    recordZone: fields.timezone,
    datasetZone,
    callerZone: fallbacks.callerZone,
    clinicZone: fallbacks.clinicZone,
  });
  return {
    id: row.id,
    type: row.type,
    time: isoDateTime(row.time),
    value: fromMmol(row.value, GLUCOSE_UNITS[units]),
    units,
    uploadId: row.datasetId,
    deviceId: row.deviceId,
    createdTime: isoDateTime(row.createdTime),
    localTime: localDateTime(row.time, local.minutes),
    localTimeOffset: local.minutes,
    localTimeSource: local.source,
    fields,
  };
}

/** The reading as Tidepool's data model writes it (its fields as uploaded), plus its local time. */
export function readingRecord({
  fields,
  deviceId,
  createdTime,
  ...computed
}: ExportedReading): Record<string, unknown> {
  return { ...fields, ...computed, ...(deviceId === null ? {} : { deviceId }), createdTime };
}

/**
 * readingRecord as JSON, written without building the merged object: a year of readings is
 * 100,000 of them, and the spreads cost more than the rest of the export. The record's own fields
 * never hold the computed names (ingestion strips them), except an uploader's `uploadId`. One
 * JSON.stringify of a flat object builds its text in one pass, without a string per value.
 */
export function readingJson(reading: ExportedReading): string {
  const { fields } = reading;
  if ('uploadId' in fields) return JSON.stringify(readingRecord(reading));
  const computed = JSON.stringify({
    id: reading.id,
    type: reading.type,
    time: reading.time,
    value: reading.value,
    units: reading.units,
    uploadId: reading.uploadId,
    deviceId: reading.deviceId ?? undefined,
    createdTime: reading.createdTime,
    localTime: reading.localTime,
    localTimeOffset: reading.localTimeOffset,
    localTimeSource: reading.localTimeSource,
  });
  const own = JSON.stringify(fields);
  return own === '{}' ? computed : `${own.slice(0, -1)},${computed.slice(1)}`;
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

/** One cell of a reading: what the export computes, else the record's own field of that name. */
function readingCell(reading: ExportedReading, column: string): Cell {
  if (column === 'otherFields') return otherFields(reading.fields);
  if (column in reading) return cell(reading[column as keyof ExportedReading]);
  return cell(reading.fields[column]);
}

/** A reading as a table row in `columns`' order: its columns, the fields without one as JSON in `otherFields`. */
export const readingCells = (reading: ExportedReading, columns: readonly string[]): Cell[] =>
  columns.map((column) => readingCell(reading, column));

function otherFields(fields: Record<string, unknown>): Cell {
  let others: Record<string, unknown> | null = null;
  for (const name in fields) if (!COLUMNED.has(name)) (others ??= {})[name] = fields[name];
  return others && JSON.stringify(others);
}

/** The CSV table's columns a reading of each type fills (null: left empty), worked out once. */
const CSV_COLUMNS_OF = {
  cbg: CSV_COLUMNS.map((column) => (column === 'type' || CBG_COLUMNS.includes(column) ? column : null)),
  smbg: CSV_COLUMNS.map((column) => (column === 'type' || SMBG_COLUMNS.includes(column) ? column : null)),
};

/** The columns of a reading's type, the rest empty: a row of the one CSV table. */
export function readingCsvCells(reading: ExportedReading): Cell[] {
  return CSV_COLUMNS_OF[reading.type === 'cbg' ? 'cbg' : 'smbg'].map((column) =>
    column === null ? null : readingCell(reading, column),
  );
}

/** A table row in `columns`' order. */
export const cellsOf = (row: TableRow, columns: readonly string[]): Cell[] =>
  columns.map((column) => row[column] ?? null);

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
export const FORMULA_START = /^[=+\-@\t\r]/;
