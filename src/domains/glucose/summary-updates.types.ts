import { Field, ID, ObjectType } from 'type-graphql';
import { GlucoseSummaryKindValue } from './glucose-summary.types';
import type { SummaryChange } from './summary-feed';

@ObjectType({
  description:
    'An account’s glucose summary changed (an upload, a closed or deleted dataset, a repair). Ask for `glucoseSummary(period) { … }` to receive the new numbers.',
})
export class GlucoseSummaryUpdate {
  @Field(() => ID, { description: 'The account whose summary changed.' })
  userId!: string;

  @Field(() => GlucoseSummaryKindValue, { description: 'Which summary changed.' })
  kind!: GlucoseSummaryKindValue;

  static from(change: SummaryChange): GlucoseSummaryUpdate {
    return Object.assign(new GlucoseSummaryUpdate(), {
      userId: change.userId,
      kind: change.kind as GlucoseSummaryKindValue,
    });
  }
}
