import { describe, expect, it } from '@jest/globals';
import { stringify } from 'csv-stringify/sync';
import { MG_DL_PER_MMOL_L } from '../glucose/summary/units';
import { patientCsvHeader, patientCsvRow, patientCsvWriter, type Cell } from './patient-csv';
import type { PatientRow } from './patients.repository';

const patient = (fields: Partial<PatientRow> = {}): PatientRow =>
  ({
    clinicId: 'c'.repeat(24),
    userId: 'u1',
    fullName: 'Jamie Doe',
    birthDate: '2012-04-30',
    email: null,
    mrn: 'MRN-1',
    tags: ['t2', 't1', 'gone'],
    ...fields,
  }) as PatientRow;
const TAGS = new Map([
  ['t1', 'Pump'],
  ['t2', 'Teen'],
]);
const LAST_CGM = new Date('2026-01-02T03:04:05.000Z');
const LAST_BGM = new Date('2026-01-03T00:00:00.000Z');
const CGM = {
  last_data: LAST_CGM,
  average_glucose_mmol: 8,
  average_glucose_mmol_delta: -0.5,
  time_in_target_percent: 0.7,
  time_in_target_minutes: 14_112,
  glycemia_risk_zone: 'B',
};

/** The CSV text the writer makes of these records. */
async function written(records: Cell[][], units: 'MG_DL' | 'MMOL_L' = 'MG_DL'): Promise<string> {
  const writer = patientCsvWriter(units);
  const chunks: string[] = [];
  writer.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  const ended = new Promise((resolve) => writer.on('end', resolve));
  for (const record of records) writer.write(record);
  writer.end();
  await ended;
  return chunks.join('');
}

describe('the patient CSV', () => {
  it('has the record, then each kind’s lastData and statistics; glucose headers say their unit', () => {
    const header = patientCsvHeader('MG_DL');
    expect(header.slice(0, 8)).toEqual([
      'id',
      'fullName',
      'mrn',
      'birthDate',
      'email',
      'tags',
      'lastData',
      'cgm.lastData',
    ]);
    expect(header).toContain('cgm.averageGlucose (mg/dL)');
    expect(header).toContain('cgm.averageGlucoseDelta (mg/dL)');
    expect(header).toContain('bgm.standardDeviation (mg/dL)');
    expect(header).toContain('cgm.timeInTargetPercent');
    expect(header).toContain('cgm.glycemiaRiskZone');
    expect(header).not.toContain('bgm.timeCGMUsePercent');
    expect(header.some((name) => name.includes('Mmol'))).toBe(false);
    expect(patientCsvHeader('MMOL_L')).toContain('cgm.min (mmol/L)');
    expect(new Set(header).size).toBe(header.length);
  });

  it('converts glucose statistics from mmol/L, leaves fractions and counts, names tags and takes the newest lastData', () => {
    const header = patientCsvHeader('MG_DL');
    const row = patientCsvRow(patient(), TAGS, { cgm: CGM, bgm: { last_data: LAST_BGM } }, 'MG_DL');
    const cell = (name: string) => row[header.indexOf(name)];
    expect(row).toHaveLength(header.length);
    expect(row.slice(0, 7)).toEqual([
      'u1',
      'Jamie Doe',
      'MRN-1',
      '2012-04-30',
      null,
      'Teen; Pump',
      LAST_BGM.toISOString(),
    ]);
    expect(cell('cgm.lastData')).toBe(LAST_CGM.toISOString());
    expect(cell('cgm.averageGlucose (mg/dL)')).toBe(8 * MG_DL_PER_MMOL_L);
    expect(cell('cgm.averageGlucoseDelta (mg/dL)')).toBe(-0.5 * MG_DL_PER_MMOL_L);
    expect(cell('cgm.timeInTargetPercent')).toBe(0.7);
    expect(cell('cgm.timeInTargetMinutes')).toBe(14_112);
    expect(cell('cgm.glycemiaRiskZone')).toBe('B');
    expect(cell('cgm.glucoseManagementIndicator')).toBeNull();
    expect(cell('bgm.averageGlucose (mg/dL)')).toBeNull();
    const mmol = patientCsvRow(patient(), TAGS, { cgm: CGM }, 'MMOL_L');
    expect(mmol[patientCsvHeader('MMOL_L').indexOf('cgm.averageGlucose (mmol/L)')]).toBe(8);
  });

  it('leaves a patient without summaries or tags empty past its record', () => {
    const row = patientCsvRow(patient({ tags: [] }), TAGS, {}, 'MMOL_L');
    expect(row.slice(5).every((value) => value === null)).toBe(true);
  });

  it('quotes as RFC 4180 says, with CRLF between records', async () => {
    const text = await written([['a,b', 'say "hi"', 'two\nlines', null, 3]]);
    expect(text.split('\r\n')[1]).toBe('"a,b","say ""hi""","two\nlines",,3');
    expect(text.startsWith('id,fullName,mrn,')).toBe(true);
  });

  it('puts a quote before text that a spreadsheet would run, never before a number', async () => {
    const cells: Cell[] = ['=HYPERLINK("http://x","y")', '+1', '-1', '@SUM(A1)', '\tx', '\rx', 'ok', -0.25, -3];
    const [, record] = (await written([cells])).split('\r\n');
    expect(record).toBe(`"'=HYPERLINK(""http://x"",""y"")",'+1,'-1,'@SUM(A1),'\tx,"'\rx",ok,-0.25,-3`);
  });

  it('writes what csv-stringify writes with escape_formulas, header and records alike', async () => {
    const cells: Cell[][] = [
      [
        'plain',
        '',
        null,
        0,
        -0,
        1e-7,
        1e21,
        -12.5,
        NaN,
        'ü, "x"',
        '\uFF1Dx',
        '\uFF0B1',
        '\uFF0D1',
        '\uFF20x',
        'a\r\nb',
      ],
      ['-', '=', "'", '"', ',', '\n', '\r', ' =x', 'x-', '@', '+', '\t', 'naïve', 'ünïcödé', '7'],
    ];
    const header = patientCsvHeader('MMOL_L');
    const expected = stringify(cells, {
      header: true,
      columns: header,
      record_delimiter: 'windows',
      quote_record_delimiter: true,
      escape_formulas: true,
    });
    expect(await written(cells, 'MMOL_L')).toBe(expected);
    expect(await written([], 'MMOL_L')).toBe(
      stringify([], { header: true, columns: header, record_delimiter: 'windows' }),
    );
  });
});
