import { p } from '@mikro-orm/core';
import { PERIODS } from './summary/periods';
import { EXPORTED_STAT_NAMES, statColumn, type ExportedStatName } from './period-stats';

/**
 * The table shape of period statistics, shared by glucose_period_stats and the per-clinic copy
 * clinics keep of it (clinic_patient_period_stats): the copy's columns are a clinic id and then
 * exactly these, partitioned the same way.
 */

/** One nullable double column per statistic, named as period-stats.ts says (a loop: 75 uniform columns). */
const statProperties = Object.fromEntries(
  EXPORTED_STAT_NAMES.map((name) => [name, p.double().nullable().fieldName(statColumn(name))]),
) as Record<ExportedStatName, ReturnType<typeof p.double>>;

/**
 * A partition of `table` per kind and period (`glucose_period_stats_cgm_14d` holds the current and the
 * previous 14-day CGM periods of every user): a list or report reads one period of one kind,
 * and PostgreSQL prunes to its partition. A row of any other kind or period fits no partition
 * and is refused. `previous` spans each partition (minvalue to maxvalue): the planner prunes
 * on kind and period but not on a boolean range key, so a partition per `previous` would be
 * read twice per probe.
 */
export const periodPartitions = (table: string) =>
  (['cgm', 'bgm'] as const).flatMap((kind) =>
    Object.keys(PERIODS).map((period) => ({
      name: `${table}_${kind}_${period}`,
      values: `from ('${kind}', '${period}', minvalue) to ('${kind}', '${period}', maxvalue)`,
    })),
  );

/** The columns of a period row after its user id, in table order. */
export function periodStatsColumns() {
  return {
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
  };
}
