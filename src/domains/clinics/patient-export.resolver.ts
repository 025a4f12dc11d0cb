import { Arg, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Scope } from '../../kernel/scope';
import { BgUnitsValue } from '../glucose/glucose-units.types';
import { SummaryPeriodValue } from '../glucose/glucose-summary.types';
import { Clinic } from './clinics.types';
import { PatientExportService } from './patient-export.service';
import { toOrder } from './patients.resolver';
import { ClinicPatientFilter } from './patient-filter.types';
import { ClinicPatientOrder } from './patient-order.types';

/** The clinic's patient list to take away, as a link to its REST download. */
@Resolver(() => Clinic)
export class ClinicPatientExportResolver {
  constructor(private readonly exports: PatientExportService) {}

  @FieldResolver(() => String, {
    description:
      'The absolute URL of the patient list as CSV (`GET /v1/clinics/{clinicId}/patients?format=csv&…`): every patient `filter` holds (not one page), in `orderBy`’s order, with the statistics of one summary period in `units`. Fetch it with your own bearer token: it is checked, and the reads recorded, when fetched. The list is checked now too (its CLINIC_MEMBERs, CLINIC_ADMINs and server tokens; BAD_USER_INPUT for a bad filter). The REST list reads one period for its filters, sort and statistics, and takes one bound per statistic: a filter it cannot say is refused naming it.',
  })
  async patientsCsvUrl(
    @Root() clinic: Clinic,
    @Arg('filter', () => ClinicPatientFilter, {
      nullable: true,
      description: 'Which patients, as in `patients`; all when omitted.',
    })
    filter: ClinicPatientFilter | null,
    @Arg('orderBy', () => ClinicPatientOrder, {
      nullable: true,
      description: 'The order, as in `patients`; by account id when omitted (only ascending).',
    })
    orderBy: ClinicPatientOrder | null,
    @Arg('period', () => SummaryPeriodValue, {
      nullable: true,
      description:
        'The summary period of the statistics, the filter and a statistic sort: `filter.period` or `orderBy.period` when omitted, else FOURTEEN_DAYS; those given must agree.',
    })
    period: SummaryPeriodValue | null,
    @Arg('usePreviousPeriod', () => Boolean, {
      nullable: true,
      description: 'True: the period just before `period` (Tidepool’s offsetPeriods); those given must agree.',
    })
    usePreviousPeriod: boolean | null,
    @Arg('units', () => BgUnitsValue, {
      nullable: true,
      description: 'The unit of the glucose statistics in the file: the clinic’s preferredBgUnits when omitted.',
    })
    units: BgUnitsValue | null,
    @Ctx() scope: Scope,
  ): Promise<string> {
    return this.exports.csvUrl(scope, clinic.id, ClinicPatientFilter.toDomain(filter), toOrder(orderBy), {
      period,
      previous: usePreviousPeriod,
      units,
    });
  }
}
