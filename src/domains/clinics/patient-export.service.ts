import { pipeline, Readable } from 'node:stream';
import { invalid } from '../../kernel/errors';
import type { Scope } from '../../kernel/scope';
import { arrayLiteral } from '../../kernel/sql';
import type { SummaryKind } from '../glucose/summary/buckets';
import type { PeriodKey } from '../glucose/summary/periods';
import type { GlucoseUnits } from '../glucose/summary/units';
import { CLINIC_PERIOD_STATS_TABLE } from './clinic-patient-period-stats.entity';
import type { ClinicsService } from './clinics.service';
import { clinicUnits } from './clinics.loaders';
import { assertClinicAccess, recordPatientAccess } from './membership';
import { patientCsvRow, patientCsvWriter, type Cell, type PeriodRow } from './patient-csv';
import { patientBatch, patientKey, type PatientFilter, type PatientOrder } from './patient-list';
import { checkPatientList, patientListSearch, type PatientListQuery, type RequestedOrder } from './patient-list-query';
import type { SummarySortSource } from './patient-filters';

/** Patients read per statement: a few hundred kilobytes of rows at a time, whatever the clinic's size. */
const BATCH_SIZE = 500;

const BY_ACCOUNT: RequestedOrder = { field: 'userId', descending: false };

/** A CSV download, and the name it is saved under. */
export interface PatientCsv {
  stream: Readable;
  filename: string;
}

/** The summary period and units of a CSV link, as GraphQL's arguments give them (each optional). */
export interface CsvLinkOptions {
  period?: PeriodKey | null;
  previous?: boolean | null;
  units?: GlucoseUnits | null;
}

/**
 * The clinic's patient list as a file to take away: every patient the list's filter holds, in
 * its order, with the statistics of one summary period (the patient list's own rules: the
 * clinic's members, admins and servers; each patient read is on the access log).
 */
export class PatientExportService {
  constructor(
    private readonly clinics: ClinicsService,
    private readonly publicUrl: string,
    private readonly batchSize = BATCH_SIZE,
  ) {}

  /**
   * The list as CSV in `units` (the clinic's preferredBgUnits when null). Access and the query are
   * checked before this answers, so a refusal is an ordinary error; the stream then reads the
   * patients in batches and fails (rather than ends) when a batch does.
   */
  async csv(scope: Scope, clinicId: string, query: PatientListQuery, units: GlucoseUnits | null): Promise<PatientCsv> {
    await assertClinicAccess(scope, clinicId, 'read');
    const { filter, order } = await checkPatientList(scope, clinicId, query.filter, query.order ?? BY_ACCOUNT);
    const chosen = units ?? (await clinicUnits(scope, clinicId));
    const tagNames = new Map((await this.clinics.patientTags(scope, clinicId)).map((tag) => [tag.id, tag.name]));
    const batches = exportBatches(scope, clinicId, filter, order, query, this.batchSize);
    const rows = async function* (): AsyncGenerator<Cell[]> {
      for await (const { patients, periods } of batches) {
        for (const patient of patients) yield patientCsvRow(patient, tagNames, periods.get(patient.userId)!, chosen);
      }
    };
    // Errors reach the reader as the stream's: the callback only keeps pipeline from raising them twice.
    const stream = pipeline(Readable.from(rows()), patientCsvWriter(chosen), () => undefined);
    const day = new Date().toISOString().slice(0, 10);
    const previous = query.previous ? '-previous' : '';
    return { stream, filename: `clinic-${clinicId}-patients-${query.period}${previous}-${day}.csv` };
  }

  /**
   * The absolute address (under PUBLIC_URL) of the REST CSV of this list, for the caller to
   * fetch with its own token. The list is checked now, so a bad one is refused here; the REST
   * list reads one period for its filters, sort and statistics: those given must agree.
   */
  async csvUrl(
    scope: Scope,
    clinicId: string,
    filter: PatientFilter,
    requested: RequestedOrder,
    options: CsvLinkOptions,
  ): Promise<string> {
    await assertClinicAccess(scope, clinicId, 'read');
    const period = agreed('period', [options.period, filter.summary?.period, requested.summary?.period]) ?? '14d';
    const previous =
      agreed('usePreviousPeriod', [options.previous, filter.summary?.previous, requested.summary?.previous]) ?? false;
    const summary = filter.summary && { ...filter.summary, period, previous };
    const sortSource: SummarySortSource | null = requested.summary ? { ...requested.summary, period, previous } : null;
    const checked = await checkPatientList(
      scope,
      clinicId,
      { ...filter, summary },
      { ...requested, summary: sortSource },
    );
    const search = patientListSearch({ ...checked, period, previous });
    search.set('format', 'csv');
    if (options.units) search.set('units', options.units === 'MG_DL' ? 'mg/dL' : 'mmol/L');
    return `${this.publicUrl}/v1/clinics/${encodeURIComponent(clinicId)}/patients?${search}`;
  }
}

/** The one value of those given, refusing two that differ (naming `field`). */
function agreed<T>(field: string, values: readonly (T | null | undefined)[]): T | undefined {
  const given = values.filter((value): value is T => value !== null && value !== undefined);
  if (given.some((value) => value !== given[0]))
    throw invalid(`${field}: the CSV link reads one period for its filters, sort and statistics`, field);
  return given[0];
}

/**
 * The list's patients in batches (keyset, in the list's order), each with its period rows of
 * both kinds. A batch's reads go on the access log before its rows are handed on: a stream
 * outlives the one write the router makes before the first byte.
 */
async function* exportBatches(
  scope: Scope,
  clinicId: string,
  filter: PatientFilter,
  order: PatientOrder,
  period: Pick<PatientListQuery, 'period' | 'previous'>,
  size: number,
) {
  const keyOf = patientKey(order);
  let after: readonly (string | number)[] | null = null;
  for (;;) {
    const rows = await patientBatch(scope, clinicId, filter, order, { first: size, after });
    const patients = rows.slice(0, size);
    if (!patients.length) return;
    const ids = patients.map((patient) => patient.userId);
    const periods = await periodRows(scope, clinicId, ids, period);
    recordPatientAccess(scope, clinicId, ids);
    await scope.accessTrail.flush(scope);
    yield { patients, periods };
    if (rows.length <= size) return;
    after = keyOf(patients.at(-1)!);
  }
}

/** Each patient's rows of the clinic copy for one period, by kind, in one statement. */
async function periodRows(
  scope: Scope,
  clinicId: string,
  userIds: readonly string[],
  { period, previous }: Pick<PatientListQuery, 'period' | 'previous'>,
): Promise<Map<string, Partial<Record<SummaryKind, PeriodRow>>>> {
  const rows = await scope.em
    .getConnection()
    .execute<PeriodRow[]>(
      `select * from ${CLINIC_PERIOD_STATS_TABLE} where clinic_id = ? and user_id = any(?::text[]) and kind in ('cgm', 'bgm') and period = ? and previous = ?`,
      [clinicId, arrayLiteral(userIds), period, previous],
    );
  const byPatient = new Map<string, Partial<Record<SummaryKind, PeriodRow>>>(userIds.map((id) => [id, {}]));
  for (const row of rows) byPatient.get(row.user_id as string)![row.kind as SummaryKind] = row;
  return byPatient;
}
