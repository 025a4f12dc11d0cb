import { once } from 'node:events';
import { PassThrough, pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import {
  CBG_COLUMNS,
  cellsOf,
  CSV_COLUMNS,
  formulaSafe,
  readingCells,
  readingCsvCells,
  readingJson,
  SMBG_COLUMNS,
  UPLOAD_COLUMNS,
  uploadRow,
  type Cell,
} from './export-rows';
import type { ExportSource } from './export-source';

/** The formats of an export: media type and file extension. */
export const EXPORT_FORMATS = {
  json: { mediaType: 'application/json; charset=utf-8', extension: 'json' },
  csv: { mediaType: 'text/csv; charset=utf-8', extension: 'csv' },
  xlsx: { mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' },
} as const;
export type ExportFormat = keyof typeof EXPORT_FORMATS;

/**
 * One JSON array: the readings in time order, then their uploads. Each batch is one chunk; the
 * array is never built whole. A failure part-way destroys the stream, so the response is cut
 * rather than ended as if complete.
 */
export function jsonExport(source: ExportSource): Readable {
  return Readable.from(
    (async function* () {
      let first = true;
      const items = (texts: string[]) => {
        const text = texts.join(',');
        const chunk = first || !text ? text : `,${text}`;
        first &&= !text;
        return chunk;
      };
      yield '[';
      for await (const batch of source.readings(['cbg', 'smbg'])) yield items(batch.map(readingJson));
      yield `${items(source.uploads().map((upload) => JSON.stringify(upload)))}]`;
    })(),
  );
}

/** Every row of the one CSV table: readings in time order, then their uploads. */
async function* csvRows(source: ExportSource): AsyncGenerator<Cell[][]> {
  for await (const batch of source.readings(['cbg', 'smbg'])) yield batch.map(readingCsvCells);
  yield source.uploads().map((upload) => cellsOf(uploadRow(upload), CSV_COLUMNS));
}

/** Batches of rows as single rows, for csv-stringify. */
async function* each<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}

/**
 * RFC 4180 CSV (CRLF, quotes where needed) with a header row, through csv-stringify's stream;
 * text that a spreadsheet would run as a formula is escaped with a leading `'`.
 */
export function csvExport(source: ExportSource): Readable {
  // pipeline destroys the stringifier (and so the response) when reading fails.
  return pipeline(Readable.from(each(csvRows(source))), csvStringifier(CSV_COLUMNS), () => {});
}

/** csv-stringify as the export writes: a header row, CRLF, booleans as words, formula text escaped. */
export const csvStringifier = (columns: readonly string[]) =>
  stringify({
    header: true,
    columns: [...columns],
    record_delimiter: 'windows',
    // RFC 4180 quotes a field with either line break, not only the record delimiter (CRLF).
    quoted_match: /[\r\n]/,
    cast: { boolean: (value) => String(value), string: (value) => String(formulaSafe(value)) },
  });

/** Waits until `out` wants more (or is gone), so a slow client holds the reads rather than memory. */
async function roomIn(out: PassThrough): Promise<void> {
  await new Promise(setImmediate);
  if (!out.writableNeedDrain || out.destroyed) return;
  await Promise.race([once(out, 'drain'), once(out, 'close')]);
}

async function writeSheet(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  out: PassThrough,
  name: string,
  columns: readonly string[],
  batches: AsyncIterable<Cell[][]>,
): Promise<void> {
  const sheet = workbook.addWorksheet(name);
  sheet.addRow([...columns]).commit();
  for await (const rows of batches) {
    for (const row of rows) sheet.addRow(row).commit();
    if (out.destroyed) throw new Error('The export’s reader went away');
    await roomIn(out);
  }
  sheet.commit();
}

async function* sheetBatches(source: ExportSource, type: 'cbg' | 'smbg', columns: readonly string[]) {
  for await (const batch of source.readings([type])) yield batch.map((reading) => readingCells(reading, columns));
}

/**
 * An Excel workbook through exceljs's streaming writer, one sheet per kind (cbg, smbg, uploads),
 * each written whole before the next (a zip holds one entry at a time), straight into the stream.
 */
export function xlsxExport(source: ExportSource): Readable {
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const write = async () => {
    await writeSheet(workbook, out, 'cbg', CBG_COLUMNS, sheetBatches(source, 'cbg', CBG_COLUMNS));
    await writeSheet(workbook, out, 'smbg', SMBG_COLUMNS, sheetBatches(source, 'smbg', SMBG_COLUMNS));
    const uploads = (async function* () {
      yield source.uploads().map((upload) => cellsOf(uploadRow(upload), UPLOAD_COLUMNS));
    })();
    await writeSheet(workbook, out, 'uploads', UPLOAD_COLUMNS, uploads);
    await workbook.commit();
  };
  write().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}

export const WRITERS: Record<ExportFormat, (source: ExportSource) => Readable> = {
  json: jsonExport,
  csv: csvExport,
  xlsx: xlsxExport,
};
