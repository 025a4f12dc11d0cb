import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Hash partitions of the readings table (see the migration for why this layout). */
export const READING_PARTITIONS = 16;

/**
 * One `cbg` or `smbg` record, its value in mmol/L. Indexed by a hash of the user and the time, so
 * one user's readings over a time range are one contiguous index range; partitioned by user. What
 * its dataset's records repeat is its shape (`GlucoseReadingShape`); the columns are ordered so
 * that none is padded (migrations/Migration20261127170000_compact_glucose_readings.ts says why).
 * The table has no primary key (Migration20261127193000_glucose_readings_user_time_key says why);
 * (user, time, id) is the entity's identity for MikroORM only, which reads and writes readings
 * through SQL of its own (readings.repository.ts).
 */
export const GlucoseReadingSchema = defineEntity({
  name: 'GlucoseReading',
  tableName: 'glucose_readings',
  partitionBy: { type: 'hash', expression: 'userId', partitions: READING_PARTITIONS },
  properties: {
    time: p.datetime().primary(),
    createdTime: p.datetime(),
    value: p.double(),
    /** The record's id as 16 bytes (a sent id that is not hex: a digest, the id itself in `extra`). */
    id: p.uuid().primary(),
    shape: p.integer(),
    active: p.boolean(),
    userId: p.string().primary().length(36),
    /** The record's fields that are not its shape's; null when it has none. */
    extra: p.json<Record<string, unknown>>().nullable(),
  },
  indexes: [
    {
      name: 'glucose_readings_user_time_index',
      expression: `create index "glucose_readings_user_time_index" on "glucose_readings" (hashtextextended("user_id", 0), "time")`,
    },
    {
      name: 'glucose_readings_origin_key_unique',
      expression: `create unique index "glucose_readings_origin_key_unique" on "glucose_readings" ("user_id", (extra->>'~k')) where (extra->>'~k') is not null`,
    },
  ],
});

export type GlucoseReadingRecord = InferEntity<typeof GlucoseReadingSchema>;

/**
 * What a dataset's readings share: type, device, the minutes each stands for and the fields in
 * `SHAPE_FIELDS` (reading-shape.ts), once per distinct combination (`digest`), with the times
 * its readings span, through which a dataset's readings are found on the readings' (user, time) index.
 */
export const GlucoseReadingShapeSchema = defineEntity({
  name: 'GlucoseReadingShape',
  tableName: 'glucose_reading_shapes',
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.string().length(36),
    datasetId: p.string().length(32),
    digest: p.uuid(),
    type: p.string().length(4),
    /** Minutes each reading stands for in summaries (0 for fingersticks). */
    minutes: p.smallint(),
    deviceId: p.text().nullable(),
    fields: p.json<Record<string, unknown>>(),
    firstTime: p.datetime(),
    lastTime: p.datetime(),
  },
  uniques: [{ properties: ['datasetId', 'digest'] }],
  indexes: [{ properties: ['userId', 'type'] }],
});
