import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Hash partitions of the readings table (see the migration for why this layout). */
export const READING_PARTITIONS = 16;

/**
 * One `cbg` or `smbg` record, its value in mmol/L. Keyed by user and time, so one user's
 * readings over a time range are one contiguous index range; partitioned by user.
 */
export const GlucoseReadingSchema = defineEntity({
  name: 'GlucoseReading',
  tableName: 'glucose_readings',
  partitionBy: { type: 'hash', expression: 'userId', partitions: READING_PARTITIONS },
  properties: {
    userId: p.string().primary().length(36),
    time: p.datetime().primary(),
    id: p.string().primary().length(32),
    datasetId: p.string().length(32),
    type: p.string().length(4),
    value: p.double(),
    /** Minutes the reading stands for in summaries (0 for fingersticks). */
    minutes: p.smallint(),
    active: p.boolean(),
    /** What makes two records the same under the dataset's deduplicator; null: always kept. */
    dedupKey: p.string().length(64).nullable(),
    deviceId: p.text().nullable(),
    /** The record's other fields as sent (sample interval, time zone offset, trend ...). */
    fields: p.json<Record<string, unknown>>(),
    createdTime: p.datetime(),
  },
  uniques: [{ properties: ['userId', 'datasetId', 'dedupKey'] }],
});

export type GlucoseReadingRecord = InferEntity<typeof GlucoseReadingSchema>;
