/** What a cell holds: text, a number, a truth value, or nothing (no cell written). */
export type SheetCell = string | number | boolean | null;

const XML_SPECIAL = /[&<>"]/g;
const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
/**
 * Characters XML 1.0 cannot carry (C0 controls but tab, line feed and carriage return; lone
 * surrogates; U+FFFE and U+FFFF), and an underscore that would read as the start of an escape.
 */
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|_(?=x[0-9A-Fa-f]{4}_)/g;

/** Text as XML character data, with `&`, `<`, `>` and `"` as entities. */
export function escapeXmlText(text: string): string {
  return text.replace(XML_SPECIAL, (character) => XML_ENTITIES[character]!);
}

/**
 * Text as a cell's string (ECMA-376 part 1, 22.4.2.4 ST_Xstring): what XML cannot carry is written
 * `_xHHHH_`, and an underscore that starts such a sequence is itself escaped, so every reader
 * decodes exactly the text that was written.
 */
export function cellText(text: string): string {
  return escapeXmlText(
    text.replace(NOT_XML, (unit) => `_x${unit.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`),
  );
}

/** A column's letters: 0 → A, 25 → Z, 26 → AA. */
export function columnName(index: number): string {
  let name = '';
  for (let rest = index + 1; rest > 0; rest = Math.floor((rest - 1) / 26))
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name;
  return name;
}

const COLUMN_NAMES: string[] = [];
const nameOf = (index: number) => (COLUMN_NAMES[index] ??= columnName(index));

function cellXml(reference: string, value: SheetCell): string {
  if (value === null) return '';
  if (typeof value === 'number') return `<c r="${reference}"><v>${value}</v></c>`;
  if (typeof value === 'boolean') return `<c r="${reference}" t="b"><v>${value ? 1 : 0}</v></c>`;
  return `<c r="${reference}" t="inlineStr"><is><t xml:space="preserve">${cellText(value)}</t></is></c>`;
}

/** One `<row>` of a sheet: row `number` (from 1), its cells from column A, empty cells left out. */
export function sheetRowXml(number: number, cells: readonly SheetCell[]): string {
  let xml = `<row r="${number}">`;
  for (let index = 0; index < cells.length; index += 1) xml += cellXml(`${nameOf(index)}${number}`, cells[index]!);
  return `${xml}</row>`;
}
