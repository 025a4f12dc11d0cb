import { stringify, type Stringifier } from 'csv-stringify';
import { rowDate } from '../../kernel/sql';
import { FILTERABLE_STATS, isGlucoseStat, statColumn } from '../glucose/period-stats';
import type { SummaryKind } from '../glucose/summary/buckets';
import { fromMmol, type GlucoseUnits } from '../glucose/summary/units';
import type { PatientRow } from './patient-list';

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

/** One kind's cells: its lastData, then each statistic (glucose ones converted from mmol/L), empty without a row. */
function kindCells(kind: SummaryKind, row: PeriodRow | undefined, units: GlucoseUnits): Cell[] {
  return [
    isoTime(row?.last_data),
    ...KIND_STATISTICS[kind].map((name) => {
      const value = row?.[statColumn(name)];
      if (value === null || value === undefined) return null;
      if (typeof value !== 'number') return String(value);
      return isGlucoseStat(name) ? fromMmol(value, units) : value;
    }),
  ];
}

/** A patient's row, in the order of patientCsvHeader; tags by name (in the patient's order, `; ` between). */
export function patientCsvRow(
  patient: PatientRow,
  tagNames: ReadonlyMap<string, string>,
  periods: Partial<Record<SummaryKind, PeriodRow>>,
  units: GlucoseUnits,
): Cell[] {
  const tags = patient.tags.flatMap((id) => tagNames.get(id) ?? []);
  const newest = [rowDate(periods.cgm?.last_data), rowDate(periods.bgm?.last_data)]
    .filter((time): time is Date => time !== null)
    .sort((one, other) => other.getTime() - one.getTime())[0];
  return [
    patient.userId,
    patient.fullName,
    patient.mrn ?? null,
    patient.birthDate ?? null,
    patient.email ?? null,
    tags.length ? tags.join('; ') : null,
    isoTime(newest),
    ...kindCells('cgm', periods.cgm, units),
    ...kindCells('bgm', periods.bgm, units),
  ];
}

/**
 * The CSV writer (csv-stringify): RFC 4180 (quotes doubled, fields with a comma, quote or line
 * break quoted, CRLF between records), the header first. `escape_formulas` puts a `'` before a
 * text cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return (OWASP's CSV injection
 * rule, full-width forms too), so a spreadsheet shows it as text; numbers are never prefixed,
 * so a negative delta stays a number a spreadsheet can sum.
 */
export function patientCsvWriter(units: GlucoseUnits): Stringifier {
  return stringify({
    header: true,
    columns: patientCsvHeader(units),
    record_delimiter: 'windows',
    // With a record delimiter given, csv-stringify quotes only that sequence unless told: a bare \n or \r must be quoted too.
    quote_record_delimiter: true,
    escape_formulas: true,
  });
}
