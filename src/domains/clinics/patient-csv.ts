import { Transform } from 'node:stream';
import { rowDate } from '../../kernel/sql';
import { FILTERABLE_STATS, isGlucoseStat, statColumn } from '../glucose/period-stats';
import type { SummaryKind } from '../glucose/summary/buckets';
import { fromMmol, type GlucoseUnits } from '../glucose/summary/units';
import type { ExportedRecord } from './patient-list.repository';
import { csvRecord } from '../../kernel/csv';

/**
 * The patient list as CSV: one row per patient, its record and every statistic of one summary
 * period of each kind, as the clinic copy keeps them (exportPeriod: withheld statistics empty).
 * Cells are typed: text is what clinicians typed (names, MRNs, tags) and may start like a
 * formula, numbers are the service's own and are written as numbers.
 */

/** A patient's period row of one kind from clinic_patient_period_stats (snake-case columns), if it has one. */
export type PeriodRow = Record<string, unknown>;

export type Cell = string | number | null;

/** The statistics of each kind, in the clinic copy's catalogue (period-stats.ts), with the risk index and zone for CGM. */
const KIND_STATISTICS: Record<SummaryKind, readonly string[]> = {
  cgm: [...FILTERABLE_STATS.cgm, 'glycemiaRiskIndex', 'glycemiaRiskZone'],
  bgm: FILTERABLE_STATS.bgm,
};

const UNIT_LABELS: Record<GlucoseUnits, string> = { MG_DL: 'mg/dL', MMOL_L: 'mmol/L' };

/**
 * A statistic's column: the mean glucose is `averageGlucose` in the file's units (as GraphQL's
 * in-units field), so no column named in mmol/L holds mg/dL; every glucose column's header says
 * its unit. Fractions (0 to 1), counts and the GMI (%) are as stored.
 */
const statisticHeader = (kind: SummaryKind, name: string, units: GlucoseUnits) =>
  `${kind}.${name.replace('averageGlucoseMmol', 'averageGlucose')}${isGlucoseStat(name) ? ` (${UNIT_LABELS[units]})` : ''}`;

const RECORD_HEADERS = ['id', 'fullName', 'mrn', 'birthDate', 'email', 'tags', 'lastData'];

/** The header row: the record, the newest data of either kind, then each kind's `lastData` and statistics. */
export function patientCsvHeader(units: GlucoseUnits): string[] {
  return [
    ...RECORD_HEADERS,
    ...(['cgm', 'bgm'] as const).flatMap((kind) => [
      `${kind}.lastData`,
      ...KIND_STATISTICS[kind].map((name) => statisticHeader(kind, name, units)),
    ]),
  ];
}

const isoTime = (value: unknown): string | null => rowDate(value)?.toISOString() ?? null;

/** Each kind's statistics as read: the column, and whether it holds glucose (named once, not per cell of every row). */
const KIND_COLUMNS = {
  cgm: KIND_STATISTICS.cgm.map((name) => ({ column: statColumn(name), glucose: isGlucoseStat(name) })),
  bgm: KIND_STATISTICS.bgm.map((name) => ({ column: statColumn(name), glucose: isGlucoseStat(name) })),
};

/** The columns of a kind's period row that patientCsvRow reads. */
export const PERIOD_COLUMNS: Record<SummaryKind, readonly string[]> = {
  cgm: ['last_data', ...KIND_COLUMNS.cgm.map(({ column }) => column)],
  bgm: ['last_data', ...KIND_COLUMNS.bgm.map(({ column }) => column)],
};

/** A record's cells: the record, the newest lastData, then each kind's lastData and statistics. */
const RECORD_LENGTH = RECORD_HEADERS.length + 2 + KIND_COLUMNS.cgm.length + KIND_COLUMNS.bgm.length;

/**
 * One kind's cells, written into `cells` from `at` (the record's array is made at its length
 * once: grown cell by cell, it was copied four times a patient): its lastData, then each
 * statistic (glucose ones converted from mmol/L), empty without a row. The next index is returned.
 */
function kindCells(cells: Cell[], at: number, kind: SummaryKind, row: PeriodRow | undefined, units: GlucoseUnits) {
  let next = at;
  cells[next++] = isoTime(row?.last_data);
  for (const { column, glucose } of KIND_COLUMNS[kind]) {
    const value = row?.[column];
    if (value === null || value === undefined) cells[next++] = null;
    else if (typeof value !== 'number') cells[next++] = String(value);
    else cells[next++] = glucose ? fromMmol(value, units) : value;
  }
  return next;
}

/** A patient's row, in the order of patientCsvHeader; tags by name (in the patient's order, `; ` between). */
export function patientCsvRow(
  patient: ExportedRecord,
  tagNames: ReadonlyMap<string, string>,
  periods: Partial<Record<SummaryKind, PeriodRow>>,
  units: GlucoseUnits,
): Cell[] {
  const tags = patient.tags.flatMap((id) => tagNames.get(id) ?? []);
  const cgm = rowDate(periods.cgm?.last_data);
  const bgm = rowDate(periods.bgm?.last_data);
  const newest = cgm && bgm ? (bgm > cgm ? bgm : cgm) : (cgm ?? bgm);
  const cells = new Array<Cell>(RECORD_LENGTH);
  cells[0] = patient.userId;
  cells[1] = patient.fullName;
  cells[2] = patient.mrn ?? null;
  cells[3] = patient.birthDate ?? null;
  cells[4] = patient.email ?? null;
  cells[5] = tags.length ? tags.join('; ') : null;
  cells[6] = newest?.toISOString() ?? null;
  kindCells(cells, kindCells(cells, RECORD_HEADERS.length, 'cgm', periods.cgm, units), 'bgm', periods.bgm, units);
  return cells;
}

/** Characters of records gathered before they are handed on: a few socket writes, not one per patient. */
const WRITE_CHARS = 16 * 1024;

/**
 * The CSV writer: records (Cell arrays) in, RFC 4180 text out (quotes doubled, fields with a
 * comma, quote or line break quoted, CRLF after every record), the header first, even with no
 * record. It writes what csv-stringify writes with `escape_formulas` (patient-csv.test.ts
 * compares them); its cast and options per cell cost three times the rest of the export.
 */
export function patientCsvWriter(units: GlucoseUnits): Transform {
  let text = csvRecord(patientCsvHeader(units));
  return new Transform({
    writableObjectMode: true,
    transform(cells: Cell[], _encoding, done) {
      text += csvRecord(cells);
      if (text.length < WRITE_CHARS) return done();
      const written = text;
      text = '';
      done(null, written);
    },
    flush(done) {
      done(null, text || undefined);
    },
  });
}
