import { Arg, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { Scope } from '../../kernel/scope';
import type { GlucoseService } from '../glucose/glucose.service';
import { GlucoseSummary, PERIOD_ARG, SummaryPeriodValue } from '../glucose/glucose-summary.types';
import { BgUnitsValue, UNITS_ARG } from '../glucose/glucose-units.types';
import type { LocalTimeService } from '../glucose/local-time.service';
import { clinicUnits } from './clinics.loaders';
import { ClinicPatient } from './patients.types';

/**
 * A clinic patient's glucose, as the clinic's dashboards show it: the glucose domain computes it,
 * the patient's grant to the clinic decides what is read.
 */
@Resolver(() => ClinicPatient)
export class ClinicPatientGlucoseResolver {
  constructor(
    private readonly glucose: GlucoseService,
    private readonly times: LocalTimeService,
  ) {}

  @FieldResolver(() => GlucoseSummary, {
    nullable: true,
    description:
      'The patient’s glucose statistics for one period (what the patient lets the clinic read); null when it has no readings or grants the clinic nothing to read.',
  })
  async glucoseSummary(
    @Root() patient: ClinicPatient,
    @Arg('period', () => SummaryPeriodValue, PERIOD_ARG)
    period: SummaryPeriodValue,
    @Arg('units', () => BgUnitsValue, UNITS_ARG) units: BgUnitsValue | null,
    @Ctx() scope: Scope,
  ): Promise<GlucoseSummary | null> {
    const summaries = await this.glucose.summariesOfClinicPatient(scope, patient, period);
    return summaries && GlucoseSummary.from(summaries, units ?? (await clinicUnits(scope, patient.clinicId)));
  }

  @FieldResolver(() => String, {
    nullable: true,
    description:
      'The time zone (IANA name) of the patient’s newest upload that named one; null when none did or the patient grants the clinic nothing.',
  })
  timeZone(@Root() patient: ClinicPatient, @Ctx() scope: Scope): Promise<string | null> {
    return this.times.lastTimeZoneOfClinicPatient(scope, patient);
  }
}
