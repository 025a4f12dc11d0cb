import { Arg, Ctx, FieldResolver, ID, Resolver, Root, Subscription } from 'type-graphql';
import { liveTarget } from '../../graphql/live';
import type { Scope } from '../../kernel/scope';
import type { ClinicSummaryChange } from './clinic-summary-feed';
import { ClinicPatientSummaryUpdate } from './clinic-summary-updates.types';
import type { PatientsService } from './patients.service';
import { ClinicPatient } from './patients.types';

/** The live topic of a clinic's patients' summaries; src/graphql/resolvers.ts gives it its source. */
export const CLINIC_SUMMARY_TOPIC = 'clinicPatientSummary';

/** A clinic's patients' summaries pushed to its dashboards as they change, over WebSocket. */
@Resolver()
export class ClinicPatientSummarySubscriptions {
  @Subscription(() => ClinicPatientSummaryUpdate, {
    topics: CLINIC_SUMMARY_TOPIC,
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
