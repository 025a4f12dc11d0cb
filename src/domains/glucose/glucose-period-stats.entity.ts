import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { periodPartitions, periodStatsColumns } from './period-stats-columns';

/**
 * One period of a user's CGM or BGM summary as clinics see it (exportPeriod, docs/summaries.md,
 * What the clinic copy keeps), one column per statistic: a row per (user, kind, period,
 * previous), `previous` false for the current period and true for its offset (previous) period.
 * A statistic exportPeriod leaves out is NULL, so no filter matches it. Rewritten with the summary, in the same transaction.
 */
export const GlucosePeriodStatsSchema = defineEntity({
  name: 'GlucosePeriodStats',
  tableName: 'glucose_period_stats',
  // One partition per kind, period and current/previous: why, in the migration.
  partitionBy: {
    type: 'range',
    expression: ['kind', 'period', 'previous'],
    partitions: periodPartitions('glucose_period_stats'),
  },
  properties: {
    userId: p.string().primary().length(36),
    ...periodStatsColumns(),
  },
});

export type GlucosePeriodStatsRecord = InferEntity<typeof GlucosePeriodStatsSchema>;
