import { Arg, Ctx, FieldResolver, ID, Resolver, Root, Subscription } from 'type-graphql';
import { liveTarget } from '../../graphql/live';
import type { Scope } from '../../kernel/scope';
import { GlucoseSummary, PERIOD_ARG, SummaryPeriodValue } from './glucose-summary.types';
import { BgUnitsValue, UNITS_ARG } from './glucose-units.types';
import { DEFAULT_GLUCOSE_UNITS } from './summary/units';
import type { GlucoseService } from './glucose.service';
import type { SummaryChange } from './summary-feed';
import { GlucoseSummaryUpdate } from './summary-updates.types';

/** The live topic of an account's glucose summaries; src/graphql/resolvers.ts gives it its source. */
export const SUMMARY_TOPIC = 'glucoseSummary';

/** Summaries pushed to dashboards as they change, over WebSocket (graphql-ws on /graphql). */
@Resolver()
export class GlucoseSummarySubscriptions {
  @Subscription(() => GlucoseSummaryUpdate, {
    topics: SUMMARY_TOPIC,
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
