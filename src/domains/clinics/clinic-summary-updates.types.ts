import { Field, ID, ObjectType } from 'type-graphql';
import { GlucoseSummaryKindValue } from '../glucose/glucose-summary.types';
import type { ClinicSummaryChange } from './clinic-summary-feed';

@ObjectType({
  description:
    'A clinic patient’s glucose summary changed. Ask for `patient { glucoseSummary(period) { … } }` to receive the new numbers (what the patient lets the clinic read).',
})
export class ClinicPatientSummaryUpdate {
  @Field(() => ID, { description: 'The clinic.' })
  clinicId!: string;

  @Field(() => ID, { description: 'The patient’s account id.' })
  userId!: string;

  @Field(() => GlucoseSummaryKindValue, { description: 'Which summary changed.' })
  kind!: GlucoseSummaryKindValue;

  static from(change: ClinicSummaryChange): ClinicPatientSummaryUpdate {
    return Object.assign(new ClinicPatientSummaryUpdate(), {
      clinicId: change.clinicId,
      userId: change.userId,
      kind: change.kind as GlucoseSummaryKindValue,
    });
  }
}
