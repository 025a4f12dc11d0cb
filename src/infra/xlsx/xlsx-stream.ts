import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import archiver from 'archiver';
import { escapeXmlText, sheetRowXml, type SheetCell } from './sheet-xml';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
/** Rows of XML handed to the zip at once: big enough to amortise a write, small enough to stay young garbage. */
const ROWS_PER_WRITE = 200;

/** The package's fixed parts (ECMA-376 part 2): content types, relationships, the workbook naming its sheets. */
function packageParts(sheetNames: readonly string[]): [name: string, xml: string][] {
  const sheets = sheetNames.map((name, index) => ({ name, id: index + 1 }));
  const worksheetType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml';
  return [
    [
      '[Content_Types].xml',
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
        `<Default Extension="xml" ContentType="application/xml"/>` +
        `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
        sheets
          .map(({ id }) => `<Override PartName="/xl/worksheets/sheet${id}.xml" ContentType="${worksheetType}"/>`)
          .join('') +
        `</Types>`,
    ],
    [
      '_rels/.rels',
      `<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">` +
        `<Relationship Id="rId1" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `<workbook xmlns="${MAIN}" xmlns:r="${RELATIONSHIPS}"><sheets>` +
        sheets
          .map(({ name, id }) => `<sheet name="${escapeXmlText(name)}" sheetId="${id}" r:id="rId${id}"/>`)
          .join('') +
        `</sheets></workbook>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `<Relationships xmlns="${PACKAGE_RELATIONSHIPS}">` +
        sheets
          .map(
            ({ id }) =>
              `<Relationship Id="rId${id}" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet${id}.xml"/>`,
          )
          .join('') +
        `</Relationships>`,
    ],
  ];
}

/**
 * A workbook written as it is read: the package's fixed parts, then each sheet's XML streamed into
 * the zip row batch by row batch, so memory holds one batch whatever the row count. Cells are
 * plain values (no styles, no shared strings, no formulas), which is all an export needs; a
 * general spreadsheet library builds an object per row and per cell, which for a year of readings
 * cost seconds.
 */
export class XlsxStream {
  /** The zip's bytes. */
  readonly output = new PassThrough();
  private readonly archive = archiver('zip', { zlib: { level: 6 } });
  private written = 0;
  /** The sheet being written. */
  private entry: PassThrough | null = null;

  constructor(private readonly sheetNames: readonly string[]) {
    // Whatever fails inside the zip reaches the reader through `output`; once that is gone, nothing is left to tell.
    this.archive.on('error', (error) => this.output.destroy(error));
    this.archive.pipe(this.output);
    for (const [name, xml] of packageParts(sheetNames)) this.archive.append(XML_DECLARATION + xml, { name });
  }

  /**
   * Writes the next sheet (in the constructor's order): a header row of `columns`, then every
   * batch of rows, waiting while the reader is behind. Throws once the output is destroyed.
   */
  async sheet(columns: readonly string[], batches: AsyncIterable<readonly (readonly SheetCell[])[]>): Promise<void> {
    this.written += 1;
    if (this.written > this.sheetNames.length) throw new Error('More sheets than the workbook names');
    const name = `xl/worksheets/sheet${this.written}.xml`;
    const entry = (this.entry = new PassThrough());
    const taken = this.taken(name);
    this.archive.append(entry, { name });
    await this.put(`${XML_DECLARATION}<worksheet xmlns="${MAIN}"><sheetData>${sheetRowXml(1, columns)}`);
    let row = 2;
    for await (const rows of batches)
      for (let start = 0; start < rows.length; start += ROWS_PER_WRITE) {
        const xml = rows.slice(start, start + ROWS_PER_WRITE).map((cells) => sheetRowXml(row++, cells));
        await this.put(xml.join(''));
      }
    entry.end('</sheetData></worksheet>');
    await taken;
    this.assertReaderThere();
  }

  /** Ends the zip once every sheet is written. */
  async finish(): Promise<void> {
    if (this.written !== this.sheetNames.length) throw new Error('The workbook names sheets never written');
    await this.archive.finalize();
  }

  /** Stops writing and hands `error` to the reader: the workbook is cut, never ended as if whole. */
  fail(error: Error): void {
    this.output.destroy(error);
    this.entry?.destroy();
    this.archive.abort();
  }

  /** Settles once the zip has taken the whole entry `name`, or its reader is gone. */
  private taken(name: string): Promise<void> {
    return new Promise((resolve) => {
      const settle = () => {
        this.archive.off('entry', entryTaken);
        this.output.off('close', settle);
        resolve();
      };
      const entryTaken = (entry: archiver.EntryData) => {
        if (entry.name === name) settle();
      };
      this.archive.on('entry', entryTaken);
      this.output.on('close', settle);
    });
  }

  /** Writes to the sheet's entry; past its buffer, waits until the zip (and so the reader) took it. */
  private async put(xml: string): Promise<void> {
    this.assertReaderThere();
    if (this.entry!.write(xml)) return;
    await Promise.race([once(this.entry!, 'drain'), once(this.output, 'close')]);
    this.assertReaderThere();
  }

  private assertReaderThere(): void {
    if (this.output.destroyed) throw new Error('The workbook’s reader went away');
  }
}
