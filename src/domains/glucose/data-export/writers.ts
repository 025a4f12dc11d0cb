import { Readable } from 'node:stream';
import { csvRecord } from '../../../kernel/csv';
import { XlsxStream } from '../../../infra/xlsx/xlsx-stream';
import {
  CBG_COLUMNS,
  cellsOf,
  CSV_COLUMNS,
  FORMULA_START,
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

/** One CSV record, CRLF-terminated, formula-escaped by the export's rule (ASCII formula starts). */
export const csvLine = (cells: readonly Cell[]): string => csvRecord(cells, FORMULA_START);

/**
 * RFC 4180 CSV (CRLF, quotes where needed) with a header row: readings in time order, then their
 * uploads, a batch of records per chunk. Text a spreadsheet would run as a formula is escaped.
 */
export function csvExport(source: ExportSource): Readable {
  return Readable.from(
    (async function* () {
      yield csvLine(CSV_COLUMNS);
      for await (const batch of source.readings(['cbg', 'smbg']))
        yield batch.map((reading) => csvLine(readingCsvCells(reading))).join('');
      yield source
        .uploads()
        .map((upload) => csvLine(cellsOf(uploadRow(upload), CSV_COLUMNS)))
        .join('');
    })(),
  );
}

async function* sheetBatches(source: ExportSource, type: 'cbg' | 'smbg', columns: readonly string[]) {
  for await (const batch of source.readings([type])) yield batch.map((reading) => readingCells(reading, columns));
}

/**
 * An Excel workbook, one sheet per kind (cbg, smbg, uploads), each written whole before the next
 * (a zip holds one entry at a time), straight into the stream (src/infra/xlsx).
 */
export function xlsxExport(source: ExportSource): Readable {
  const workbook = new XlsxStream(['cbg', 'smbg', 'uploads']);
  const write = async () => {
    await workbook.sheet(CBG_COLUMNS, sheetBatches(source, 'cbg', CBG_COLUMNS));
    await workbook.sheet(SMBG_COLUMNS, sheetBatches(source, 'smbg', SMBG_COLUMNS));
    const uploads = (async function* () {
      yield source.uploads().map((upload) => cellsOf(uploadRow(upload), UPLOAD_COLUMNS));
    })();
    await workbook.sheet(UPLOAD_COLUMNS, uploads);
    await workbook.finish();
  };
  write().catch((error: unknown) => workbook.fail(error instanceof Error ? error : new Error(String(error))));
  return workbook.output;
}

export const WRITERS: Record<ExportFormat, (source: ExportSource) => Readable> = {
  json: jsonExport,
  csv: csvExport,
  xlsx: xlsxExport,
};
