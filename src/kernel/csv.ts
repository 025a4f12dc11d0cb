/** A CSV cell: empty for no value, booleans as words, numbers as JavaScript writes them. */
export type CsvCell = string | number | boolean | null | undefined;

/** Text a spreadsheet would run as a formula (OWASP's CSV injection rule, full-width forms too). */
export const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
/** Text RFC 4180 puts in quotes: a comma, a quote or either line break. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field as csv-stringify writes it with formula escaping: text starting like a formula
 * (`formulaStart`) gets a leading `'`, then it is quoted, its quotes doubled, where RFC 4180
 * requires. Numbers are never prefixed, so a negative one stays a number. Written by hand because
 * csv-stringify's per-field objects cost more than the rest of an export.
 */
export function csvField(cell: CsvCell, formulaStart: RegExp = FORMULA_START): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell !== 'string') return String(cell);
  const text = formulaStart.test(cell) ? `'${cell}` : cell;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record and its CRLF, as one flat string. */
export const csvRecord = (cells: readonly CsvCell[], formulaStart: RegExp = FORMULA_START): string =>
  `${cells.map((cell) => csvField(cell, formulaStart)).join(',')}\r\n`;
