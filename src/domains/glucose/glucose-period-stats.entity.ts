import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { PERIODS } from './summary/periods';
import { EXPORTED_STAT_NAMES, statColumn, type ExportedStatName } from './period-stats';

/** One nullable double column per statistic, named as period-stats.ts says (a loop: 75 uniform columns). */
const statProperties = Object.fromEntries(
  EXPORTED_STAT_NAMES.map((name) => [name, p.double().nullable().fieldName(statColumn(name))]),
) as Record<ExportedStatName, ReturnType<typeof p.double>>;

/**
 * A partition per kind and period (`glucose_period_stats_cgm_14d` holds the current and the
 * previous 14-day CGM periods of every user): a list or report reads one period of one kind,
 * and PostgreSQL prunes to its partition. A row of any other kind or period fits no partition
 * and is refused. `previous` spans each partition (minvalue to maxvalue): the planner prunes
 * on kind and period but not on a boolean range key, so a partition per `previous` would be
 * read twice per probe.
 */
export const PARTITIONS = (['cgm', 'bgm'] as const).flatMap((kind) =>
  Object.keys(PERIODS).map((period) => ({
    name: `glucose_period_stats_${kind}_${period}`,
    values: `from ('${kind}', '${period}', minvalue) to ('${kind}', '${period}', maxvalue)`,
  })),
);

/**
 * One period of a user's CGM or BGM summary as clinics see it (exportPeriod, tidepool-semantics
 * B.8), one column per statistic: a row per (user, kind, period, previous), `previous` false for
 * the current period and true for its offset (previous) period. A statistic exportPeriod leaves
 * out is NULL, so no filter matches it. Rewritten with the summary, in the same transaction.
 */
export const GlucosePeriodStatsSchema = defineEntity({
  name: 'GlucosePeriodStats',
  tableName: 'glucose_period_stats',
  // One partition per kind, period and current/previous: why, in the migration.
  partitionBy: { type: 'range', expression: ['kind', 'period', 'previous'], partitions: PARTITIONS },
  properties: {
    userId: p.string().primary().length(36),
    kind: p.string().primary().length(3),
    /** `1d`, `7d`, `14d` or `30d`. */
    period: p.string().primary().length(3),
    /** False: the current period; true: the period before it (Tidepool's offsetPeriods). */
    previous: p.boolean().primary(),
    /** The summary's lastData. */
    lastData: p.datetime().nullable(),
    /** The summary's lastUploadDate. */
    lastUploadDate: p.datetime().nullable(),
    ...statProperties,
    glycemiaRiskZone: p.text().nullable(),
  },
});

export type GlucosePeriodStatsRecord = InferEntity<typeof GlucosePeriodStatsSchema>;
