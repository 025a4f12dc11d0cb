import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import type { Scope } from '../../../kernel/scope';
import { SummaryPeriodValue } from '../../glucose/glucose-summary.types';
import { BgUnitsValue, UNITS_ARG } from '../../glucose/glucose-units.types';
import { Clinic } from '../clinics.types';
import { ClinicPatient } from '../patients.types';
import type { PatientDataSource as PatientDataSourceRecord } from './data-sources';
import { TideService } from './tide.service';
import {
  PatientDataSource,
  TideCategoryValue,
  TideReport,
  UpdatePatientDataSourcesInput,
  UpdatePatientDataSourcesPayload,
} from './tide.types';

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : undefined);

/** The TIDE report as a field of the clinic. */
@Resolver(() => Clinic)
export class ClinicTideResolver {
  constructor(private readonly tide: TideService) {}

  @FieldResolver(() => TideReport, {
    description:
      'The TIDE report: the clinic’s patients carrying all `tagIds` (every patient without them), with CGM data since `lastDataCutoff`, sorted into categories by their statistics of `period`, and those whose data stopped arriving. Its CLINIC_MEMBERs, CLINIC_ADMINs and server tokens may read it; others get FORBIDDEN.',
  })
  async tideReport(
    @Root() clinic: Clinic,
    @Arg('period', () => SummaryPeriodValue, { description: 'The period whose statistics are read.' })
    period: SummaryPeriodValue,
    @Arg('tagIds', () => [ID], {
      nullable: true,
      description:
        'Patient tag ids (24 lowercase hexadecimal characters); a patient must carry all of them. Omitted, null or empty: every patient of the clinic (REST, as Tidepool, requires one tag at least). Ids of another shape are ignored; a list of only such ids is refused.',
    })
    tagIds: string[] | null,
    @Arg('lastDataCutoff', () => Date, {
      description: 'Inclusive minimum of a patient’s newest CGM data for the categories (an ISO 8601 date-time).',
    })
    lastDataCutoff: Date,
    @Arg('categories', () => [TideCategoryValue], {
      nullable: true,
      description:
        'The categories in priority order (repeats ignored). Omitted or null: the seven defaults, very low first and meeting targets last; an empty list asks none (only `noData`).',
    })
    categories: TideCategoryValue[] | null,
    @Arg('excludeNoData', () => Boolean, {
      nullable: true,
      defaultValue: false,
      description: 'True leaves out the patients without recent data (`noData` is then null).',
    })
    excludeNoData: boolean | null,
    @Arg('units', () => BgUnitsValue, UNITS_ARG) units: BgUnitsValue | null,
    @Ctx() scope: Scope,
  ): Promise<TideReport> {
    const report = await this.tide.report(scope, clinic.id, {
      period,
      tags: tagIds,
      tagsField: 'tagIds',
      lastDataCutoff,
      categories,
      excludeNoData,
    });
    return TideReport.from(report, units ?? clinic.preferredBgUnits);
  }

  @Mutation(() => UpdatePatientDataSourcesPayload, {
    description:
      'Replaces a user’s cloud data sources on its record in every clinic it is a patient of, as Tidepool’s data-source service reports them. Server tokens only; NOT_FOUND when the user is no clinic’s patient.',
  })
  async updatePatientDataSources(
    @Arg('input', () => UpdatePatientDataSourcesInput, { description: 'The user and all its data sources.' })
    input: UpdatePatientDataSourcesInput,
    @Ctx() scope: Scope,
  ): Promise<UpdatePatientDataSourcesPayload> {
    const body: PatientDataSourceRecord[] = input.dataSources.map((source) => ({
      ...(source.dataSourceId == null ? {} : { dataSourceId: source.dataSourceId }),
      providerName: source.providerName,
      state: source.state,
      ...(iso(source.modifiedTime) ? { modifiedTime: iso(source.modifiedTime) } : {}),
      ...(iso(source.expirationTime) ? { expirationTime: iso(source.expirationTime) } : {}),
      ...(iso(source.latestDataTime) ? { latestDataTime: iso(source.latestDataTime) } : {}),
    }));
    const stored = await this.tide.updateDataSources(scope, input.userId, body);
    return Object.assign(new UpdatePatientDataSourcesPayload(), {
      userId: input.userId,
      dataSources: stored.map(PatientDataSource.from),
    });
  }
}

/** A clinic patient's data sources. */
@Resolver(() => ClinicPatient)
export class ClinicPatientDataSourcesResolver {
  constructor(private readonly tide: TideService) {}

  @FieldResolver(() => [PatientDataSource], {
    nullable: true,
    description:
      'The patient’s cloud data sources (Dexcom, Abbott, ...) as last reported; null when none were ever reported.',
  })
  async dataSources(@Root() patient: ClinicPatient, @Ctx() scope: Scope): Promise<PatientDataSource[] | null> {
    const sources = await this.tide.dataSources(scope, patient.clinicId, patient.userId);
    return sources && sources.map(PatientDataSource.from);
  }
}
