import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from '@jest/globals';
import ExcelJS from 'exceljs';
import { XlsxStream } from './xlsx-stream';

async function* batches<T>(...parts: T[][]) {
  for (const part of parts) yield part;
}

async function bytesOf(workbook: XlsxStream, write: () => Promise<void>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const collected = pipeline(
    workbook.output,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    }),
  );
  await write();
  await collected;
  return Buffer.concat(chunks);
}

describe('XlsxStream', () => {
  it('writes a workbook a spreadsheet library reads back: sheets in order, header rows, cell types', async () => {
    const workbook = new XlsxStream(['readings', 'uploads & more']);
    const rows = Array.from({ length: 1500 }, (_, index) => [`id-${index}`, index / 4, index % 2 === 0, null, '<é>']);
    const bytes = await bytesOf(workbook, async () => {
      await workbook.sheet(['id', 'value', 'even', 'empty', 'text'], batches(rows.slice(0, 700), rows.slice(700)));
      await workbook.sheet(['only'], batches([['x']]));
      await workbook.finish();
    });
    const read = new ExcelJS.Workbook();
    await read.xlsx.load(bytes as unknown as ArrayBuffer);
    expect(read.worksheets.map((sheet) => sheet.name)).toEqual(['readings', 'uploads & more']);
    const [readings, uploads] = read.worksheets;
    expect(readings!.rowCount).toBe(1501);
    expect(readings!.getRow(1).values).toEqual([undefined, 'id', 'value', 'even', 'empty', 'text']);
    expect(readings!.getRow(2).values).toEqual([undefined, 'id-0', 0, true, undefined, '<é>']);
    expect(readings!.getRow(1501).values).toEqual([undefined, 'id-1499', 374.75, false, undefined, '<é>']);
    expect(uploads!.getRow(2).values).toEqual([undefined, 'x']);
  });

  it('refuses to finish before every named sheet is written', async () => {
    const workbook = new XlsxStream(['one', 'two']);
    workbook.output.resume();
    await workbook.sheet(['a'], batches([[1]]));
    await expect(workbook.finish()).rejects.toThrow('never written');
  });

  it('stops writing once its reader went away', async () => {
    const workbook = new XlsxStream(['big']);
    workbook.output.once('data', () => workbook.output.destroy());
    const endless = (async function* () {
      for (;;) yield Array.from({ length: 500 }, (_, index) => [`row ${index}`, Math.random()]);
    })();
    await expect(workbook.sheet(['text', 'number'], endless)).rejects.toThrow('went away');
  });
});
