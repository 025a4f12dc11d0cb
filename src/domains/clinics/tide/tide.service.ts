import { forbidden, notFound, unauthenticated } from '../../../kernel/errors';
import { isAuthenticated } from '../../../kernel/principal';
import type { Scope } from '../../../kernel/scope';
import { assertUserId } from '../../../kernel/validation';
import type { ClinicsService } from '../clinics.service';
import { assertClinicAccess, recordPatientAccess } from '../membership';
import type { TideCategoryKey } from './categories';
import { parseDataSources, type PatientDataSource } from './data-sources';
import { parseTideRequest, type TideParameters, type TideRequest } from './parameters';
import { patientKey } from '../clinic-ids';
import { dataSourcesLoader, primeDataSources } from './data-sources.loaders';
import { latestDataSources, setDataSources, tideRows, type TideRow } from './tide.repository';

/** A TIDE report before it is shaped for a transport. */
export interface TideReportData {
  clinicId: string;
  parameters: TideParameters;
  /** Reached categories in priority order; a patient is in at most one; 100 patients at most in all. */
  categories: { category: TideCategoryKey; rows: TideRow[] }[];
  /** At most 50; null when excluded. */
  noData: TideRow[] | null;
}

/**
 * Tidepool's TIDE report ("Time in Diabetes Emergency"): which of a clinic's patients with
 * some tags most need a look, by their CGM statistics of a period, and the patients whose data
 * stopped arriving. Its CLINIC_MEMBERs, CLINIC_ADMINs and server tokens may read it. Also keeps
 * the patients' data sources the report shows.
 */
export class TideService {
  constructor(private readonly clinics: ClinicsService) {}

  async report(scope: Scope, clinicId: string, request: TideRequest): Promise<TideReportData> {
    await this.clinics.find(scope, clinicId);
    await assertClinicAccess(scope, clinicId, 'read');
    const parameters = parseTideRequest(request);
    const { categories, noData } = await tideRows(scope.em, clinicId, parameters);
    // The entries link to their patients, whose data sources are then known without a query.
    const rows = [...categories.flatMap((category) => category.rows), ...(noData ?? [])];
    primeDataSources(
      scope,
      rows.map((row) => ({ clinicId: row.patient.clinicId, userId: row.patient.userId, dataSources: row.dataSources })),
    );
    recordPatientAccess(
      scope,
      clinicId,
      rows.map((row) => row.patient.userId),
    );
    return { clinicId, parameters, categories, noData };
  }

  /** The data sources on a clinic's record of a patient (null: none reported), batched per request. */
  dataSources(scope: Scope, clinicId: string, userId: string): Promise<PatientDataSource[] | null> {
    return dataSourcesLoader(scope).load(patientKey(clinicId, userId));
  }

  /**
   * A user's data sources with an id, as last reported (every clinic record of the user holds the
   * same list); the caller's access to the user is checked by whoever asks.
   */
  async userDataSources(scope: Scope, userId: string): Promise<{ id: string; providerName: string; state: string }[]> {
    return ((await latestDataSources(scope.em, userId)) ?? []).flatMap((source) =>
      source.dataSourceId === undefined
        ? []
        : [{ id: source.dataSourceId, providerName: source.providerName, state: source.state }],
    );
  }

  /**
   * Replaces a user's data sources on its record in every clinic (Tidepool's internal
   * UpdatePatientDataSources, called by the data-source worker): server tokens only. NOT_FOUND
   * when the user is no clinic's patient. Answers the data sources as stored.
   */
  async updateDataSources(scope: Scope, userId: string, body: unknown): Promise<PatientDataSource[]> {
    if (!isAuthenticated(scope.principal)) throw unauthenticated();
    if (!scope.principal.isServer) throw forbidden('Only a server reports data sources');
    assertUserId(userId);
    const sources = parseDataSources(body);
    if ((await setDataSources(scope.em, userId, sources)) === 0)
      throw notFound(`User ${userId} is no clinic's patient`);
    dataSourcesLoader(scope).clearAll();
    return sources;
  }
}
