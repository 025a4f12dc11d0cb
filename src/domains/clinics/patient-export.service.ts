import { pipeline, Readable } from 'node:stream';
import { invalid } from '../../kernel/errors';
import type { ExportsInFlight } from '../../kernel/exports-in-flight';
import type { Scope } from '../../kernel/scope';
import type { PeriodKey } from '../glucose/summary/periods';
import type { GlucoseUnits } from '../glucose/summary/units';
import type { ClinicsService } from './clinics.service';
import { clinicUnits } from './clinics.loaders';
import { assertClinicAccess, recordPatientAccess } from './membership';
import { PERIOD_COLUMNS, patientCsvRow, patientCsvWriter, type Cell } from './patient-csv';
import type { PatientFilter, PatientOrder } from './patient-list';
import { exportedPatients, type ExportedPatient } from './patient-list.repository';
import {
  BY_ACCOUNT_ID,
  checkPatientList,
  patientListSearch,
  type PatientListQuery,
  type RequestedOrder,
} from './patient-list-query';
import type { SummarySortSource } from './patient-filters';

/**
 * Rows fetched at a time through the export's cursor: few enough that they die young. While a
 * fetch of 100 is turned into CSV, its rows outlive two collections of the young generation (a
 * megabyte, which the service runs with) and are promoted: 100 promoted twice the bytes 20 did.
 */
const FETCH_SIZE = 20;

/** Patients recorded on the access log between its writes: one access-log record each. */
const ACCESS_GROUP = 1000;

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
    private readonly inFlight: ExportsInFlight,
    private readonly publicUrl: string,
    private readonly fetchSize = FETCH_SIZE,
  ) {}

  /**
   * The list as CSV in `units` (the clinic's preferredBgUnits when null). Access and the query are
   * checked before this answers, so a refusal is an ordinary error; the stream then reads the
   * patients through one statement and fails (rather than ends) when it does.
   */
  async csv(scope: Scope, clinicId: string, query: PatientListQuery, units: GlucoseUnits | null): Promise<PatientCsv> {
    await assertClinicAccess(scope, clinicId, 'read');
    const { filter, order } = await checkPatientList(scope, clinicId, query.filter, query.order ?? BY_ACCOUNT_ID);
    const chosen = units ?? (await clinicUnits(scope, clinicId));
    const tagNames = new Map((await this.clinics.patientTags(scope, clinicId)).map((tag) => [tag.id, tag.name]));
    const patients = recordedPatients(scope, clinicId, filter, order, query, this.fetchSize);
    const rows = async function* (): AsyncGenerator<Cell[]> {
      for await (const fetched of patients)
        for (const { patient, periods } of fetched) yield patientCsvRow(patient, tagNames, periods, chosen);
    };
    // One of the caller's exports in flight until the stream ends or is closed. Errors reach the
    // reader as the stream's: the callback only keeps pipeline from raising them twice.
    const stream = await this.inFlight.open(scope.principal, () =>
      pipeline(Readable.from(rows()), patientCsvWriter(chosen), () => undefined),
    );
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
 * The list's patients in its order, a fetch at a time, each on the access log before it is
 * handed on: recorded as it is read, written every ACCESS_GROUP patients and when the stream
 * ends or stops (the client left, the statement failed). A stream outlives the one write the
 * router makes before the first byte. Fetches are not held back until a group is written: the
 * rows of a thousand patients would outlive the young generation and be promoted.
 */
async function* recordedPatients(
  scope: Scope,
  clinicId: string,
  filter: PatientFilter,
  order: PatientOrder,
  period: Pick<PatientListQuery, 'period' | 'previous'>,
  fetchSize: number,
): AsyncGenerator<ExportedPatient[]> {
  let unwritten = 0;
  try {
    for await (const fetched of exportedPatients(
      scope.em,
      clinicId,
      filter,
      order,
      period,
      PERIOD_COLUMNS,
      fetchSize,
    )) {
      recordPatientAccess(
        scope,
        clinicId,
        fetched.map(({ patient }) => patient.userId),
      );
      unwritten += fetched.length;
      if (unwritten >= ACCESS_GROUP) {
        unwritten = 0;
        await scope.accessTrail.flush(scope);
      }
      yield fetched;
    }
  } finally {
    await scope.accessTrail.flush(scope);
  }
}
