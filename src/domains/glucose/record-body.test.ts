import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { readRecords } from './record-body';

const body = (records: unknown) => ({
  stream: Readable.from([Buffer.from(JSON.stringify(records))]),
  mediaType: 'application/json',
});
const reading = { type: 'cbg', time: '2024-01-02T03:04:05Z', value: 120, units: 'mg/dL' };

describe('an upload body', () => {
  it('reads records without NUL, whatever else their text holds', async () => {
    const records = await readRecords(body([{ ...reading, notes: ['backslash \\u0000 is no NUL'] }]));
    expect(records.map((record) => record.fields.notes)).toEqual([['backslash \\u0000 is no NUL']]);
  });

  // JSON carries a NUL only as the escape \u0000; the body's text is searched for it before its
  // records are walked (mayHoldNul), and the refusal still names where the NUL is.
  it('refuses a NUL in a value or a field name, naming where it is', async () => {
    await expect(readRecords(body([reading, { ...reading, notes: ['a\u0000b'] }]))).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: '[1].notes[0]' },
    });
    await expect(readRecords(body([{ ...reading, payload: { ['k\u0000']: 1 } }]))).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'a field name in [0].payload' },
    });
  });
});
