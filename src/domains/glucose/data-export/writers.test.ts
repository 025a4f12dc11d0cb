import { describe, expect, it } from '@jest/globals';
import { cellsOf, type Cell } from './export-rows';
import type { ExportSource } from './export-source';
import { csvLine, WRITERS } from './writers';

/** Rows through the export's CSV writer, with their header row. */
async function csvOf(rows: Record<string, Cell>[]): Promise<string> {
  return [['a', 'b'], ...rows.map((row) => cellsOf(row, ['a', 'b']))].map(csvLine).join('');
}

describe('CSV escaping (RFC 4180 and formulas)', () => {
  it('quotes commas, quotes and line breaks, doubles quotes, and ends lines with CRLF', async () => {
    expect(
      await csvOf([
        { a: 'x,y', b: 'say "hi"' },
        { a: 'two\nlines', b: null },
      ]),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n"two\nlines",\r\n');
  });

  it('escapes formula text, keeps numbers and writes booleans as words', async () => {
    expect(
      await csvOf([
        { a: '=HYPERLINK("x")', b: -3.5 },
        { a: '@cmd', b: true },
      ]),
    ).toBe('a,b\r\n"\'=HYPERLINK(""x"")",-3.5\r\n\'@cmd,true\r\n');
  });
});

describe('formula-safe cells', () => {
  it.each(['=1+1', '+1', '-2', '@SUM(A1)', '\tx', '\rx'])('escapes text starting like a formula: %j', (text) => {
    expect(csvLine([text]).replace(/^"/, '')).toMatch(/^'/);
  });

  it('leaves other text, numbers (negative too) and empty cells alone', () => {
    expect(csvLine(['DexG6', -5, null, '', 'a=b'])).toBe('DexG6,-5,,,a=b\r\n');
  });
});

describe('a failure part-way', () => {
  /** A source whose second batch fails, as a database outage mid-export would. */
  const failing = {
    units: 'mg/dL',
    async *readings() {
      yield [
        {
          id: 'a'.repeat(32),
          type: 'cbg',
          time: '2024-01-01T00:00:00.000Z',
          value: 100,
          units: 'mg/dL',
          uploadId: 'd'.repeat(32),
          localTime: '2024-01-01T00:00:00',
          localTimeOffset: 0,
          localTimeSource: 'utc',
          deviceId: null,
          createdTime: new Date('2024-01-01T00:00:00.000Z'),
          fields: {},
        },
      ];
      throw new Error('the database went away');
    },
    uploads: () => [],
  } as unknown as ExportSource;

  it.each(Object.keys(WRITERS) as (keyof typeof WRITERS)[])(
    'destroys the %s stream with the error instead of ending it',
    async (format) => {
      const stream = WRITERS[format](failing);
      let ended = false;
      stream.on('end', () => (ended = true));
      await expect(
        (async () => {
          for await (const _chunk of stream);
        })(),
      ).rejects.toThrow('the database went away');
      expect(ended).toBe(false);
    },
  );
});
