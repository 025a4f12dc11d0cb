import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { HourBucket } from './summary/buckets';
import type { SummaryPeriods } from './summary/periods';

/** Tidepool's summary schema version these buckets and periods follow (docs/summaries.md, Ranges). */
export const SUMMARY_SCHEMA_VERSION = 6;

/**
 * One hour of a user's readings of one kind (`cgm` or `bgm`), as the summary keeps it: what the
 * next upload extends instead of rescanning the user's history. Sixty days are kept.
 */
export const GlucoseBucketSchema = defineEntity({
  name: 'GlucoseBucket',
  tableName: 'glucose_buckets',
  partitionBy: { type: 'hash', expression: 'userId', partitions: 16 },
  properties: {
    userId: p.string().primary().length(36),
    kind: p.string().primary().length(3),
    hour: p.datetime().primary(),
    /** The bucket's counts, extremes and moments (HourBucket without its hour). */
    state: p.json<Omit<HourBucket, 'hour'>>(),
  },
});

export type GlucoseBucketRecord = InferEntity<typeof GlucoseBucketSchema>;

/**
 * A user's CGM or BGM summary: dates, every period and its previous period. `outdatedSince` is
 * set when records the summary has not seen became active, `pendingFrom` to the earliest of
 * their times (the hour the update must rebuild from; a rebuild spread over several turns moves
 * it on as it goes). `queuedAt` orders the updater's queue: when the summary joined it, or when
 * its previous turn ended.
 */
export const GlucoseSummarySchema = defineEntity({
  name: 'GlucoseSummary',
  tableName: 'glucose_summaries',
  properties: {
    userId: p.string().primary().length(36),
    kind: p.string().primary().length(3),
    lastData: p.datetime().nullable(),
    firstData: p.datetime().nullable(),
    lastUploadDate: p.datetime().nullable(),
    lastUpdatedDate: p.datetime().nullable(),
    outdatedSince: p.datetime().nullable().index(),
    pendingFrom: p.datetime().nullable(),
    queuedAt: p.datetime().nullable().index(),
    periods: p.json<SummaryPeriods>().nullable(),
    /** The current periods in Tidepool's clinic copy form, JSON text (clinic-copy.ts); null for summaries written before it. */
    clinicPeriods: p.text().nullable(),
    /** The previous periods in the same form. */
    clinicOffsetPeriods: p.text().nullable(),
    /** New, from one sequence, with each clinic copy text or date shown beside it: what the service keeps a copy it read by (clinic-copy-cache.ts). Set by a trigger. */
    revision: p.bigint(),
    schemaVersion: p.integer(),
  },
});

export type GlucoseSummaryRecord = InferEntity<typeof GlucoseSummarySchema>;
