import { Arg, Ctx, FieldResolver, ID, Resolver, Root, Subscription } from 'type-graphql';
import { liveTarget } from '../../graphql/live';
import type { Scope } from '../../kernel/scope';
import { ClinicPatient } from '../clinics/patients.types';
import type { PatientsService } from '../clinics/patients.service';
import { GlucoseSummary, PERIOD_ARG, SummaryPeriodValue } from './glucose-summary.types';
import { BgUnitsValue, UNITS_ARG } from './glucose-units.types';
import { DEFAULT_GLUCOSE_UNITS } from './summary/units';
import type { GlucoseService } from './glucose.service';
import type { ClinicSummaryChange, SummaryChange } from './summary-feed';
import { ClinicPatientSummaryUpdate, GlucoseSummaryUpdate } from './summary-updates.types';

/** The live topics of glucose summaries; src/graphql/resolvers.ts gives each its source. */
export const SUMMARY_TOPICS = {
  user: 'glucoseSummary',
  clinic: 'clinicPatientSummary',
} as const;

/** Summaries pushed to dashboards as they change, over WebSocket (graphql-ws on /graphql). */
@Resolver()
export class GlucoseSummarySubscriptions {
  @Subscription(() => GlucoseSummaryUpdate, {
    topics: SUMMARY_TOPICS.user,
    topicId: liveTarget('userId'),
    description:
      'Each change of an account’s glucose summaries, within a second of the upload that caused it, from any instance of the service. Whoever may read the account’s data may subscribe; others get FORBIDDEN.',
  })
  glucoseSummaryUpdated(
    @Root() change: SummaryChange,
    @Arg('userId', () => ID, { description: 'The account to follow.' }) _userId: string,
  ): GlucoseSummaryUpdate {
    return GlucoseSummaryUpdate.from(change);
  }

  @Subscription(() => ClinicPatientSummaryUpdate, {
    topics: SUMMARY_TOPICS.clinic,
    topicId: liveTarget('clinicId'),
    description:
      'Each change of the glucose summaries of a clinic’s patients, within a second of the upload that caused it. For the clinic’s clinicians and server tokens; others get FORBIDDEN.',
  })
  clinicPatientSummaryUpdated(
    @Root() change: ClinicSummaryChange,
    @Arg('clinicId', () => ID, { description: 'The clinic to follow.' }) _clinicId: string,
  ): ClinicPatientSummaryUpdate {
    return ClinicPatientSummaryUpdate.from(change);
  }
}

@Resolver(() => GlucoseSummaryUpdate)
export class GlucoseSummaryUpdateFields {
  constructor(private readonly glucose: GlucoseService) {}

  @FieldResolver(() => GlucoseSummary, {
    nullable: true,
    description:
      'The account’s new glucose statistics for one period, read with the subscriber’s access at that moment; null once it may no longer read them.',
  })
  async glucoseSummary(
    @Root() update: GlucoseSummaryUpdate,
    @Arg('period', () => SummaryPeriodValue, PERIOD_ARG) period: SummaryPeriodValue,
    @Arg('units', () => BgUnitsValue, UNITS_ARG) units: BgUnitsValue | null,
    @Ctx() scope: Scope,
  ): Promise<GlucoseSummary | null> {
    const summaries = await this.glucose.summariesOf(scope, update.userId, period);
    return summaries && GlucoseSummary.from(summaries, units ?? DEFAULT_GLUCOSE_UNITS);
  }
}

@Resolver(() => ClinicPatientSummaryUpdate)
export class ClinicPatientSummaryUpdateFields {
  constructor(private readonly patients: PatientsService) {}

  @FieldResolver(() => ClinicPatient, {
    nullable: true,
    description: 'The patient record, with its new summaries under `glucoseSummary(period)`.',
  })
  async patient(@Root() update: ClinicPatientSummaryUpdate, @Ctx() scope: Scope): Promise<ClinicPatient> {
    return ClinicPatient.from(await this.patients.get(scope, update.clinicId, update.userId));
  }
}
