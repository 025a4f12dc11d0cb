import type { EntityManager } from '@mikro-orm/postgresql';
import { bucketsOf, hourOf, type Reading, type SummaryKind } from './summary/buckets';
import { takeTurn } from './summary/turns';
import { readingBatches, newestReadingTime, newestUploadTime, type ReadingFilter } from './readings.repository';
import { PERIODS, summarise, type PeriodKey, type SummaryPeriods } from './summary/periods';
import { exportPeriod } from './summary/export';
import { SUMMARY_SCHEMA_VERSION } from './glucose-summary.entity';
import { clinicCopyTexts } from './clinic-copy';
import {
  deleteBucketsBefore,
  deleteBucketsFrom,
  deleteSummaries,
  insertBuckets,
  loadBuckets,
  lockSummary,
  postponeSummary,
  replacePeriodStats,
  saveSummary,
  type PeriodStatsRow,
} from './summaries.repository';

/** Which record type each summary reads. */
export const RECORD_TYPE: Record<SummaryKind, 'cbg' | 'smbg'> = { cgm: 'cbg', bgm: 'smbg' };
export const KIND_OF: Record<string, SummaryKind> = { cbg: 'cgm', smbg: 'bgm' };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Buckets older than this before the newest are dropped (Tidepool's HoursAgoToKeep). */
const KEEP_MS = 1440 * HOUR_MS;
/** Records count toward summaries when within two years back and a day ahead of now (B.1). */
const PAST_MS = 2 * 365 * DAY_MS;

/** What one call of updateSummary does. */
export interface SummaryUpdate {
  /** Rebuild every bucket (repairs), which gives the same numbers. */
  full?: boolean;
  /**
   * The readings one call reads at most, besides the rest of the hour it stops in (default: no
   * bound). A rebuild that needs more stores the buckets it built, keeps the summary outdated
   * with `pending_from` at the next hour to build and sends it to the back of the queue: the
   * next call goes on from there, and other summaries are updated in between.
   */
  readings?: number;
}

/**
 * Brings one summary up to date (docs/summaries.md, from Hourly buckets to Updates), in the caller's transaction:
 * buckets from the hour of the earliest pending record onward are rebuilt from the records,
 * earlier ones kept; then every period is recomputed from the buckets. Answers false when the
 * rebuild took its share of readings and goes on at the next call.
 */
export async function updateSummary(
  tx: EntityManager,
  userId: string,
  kind: SummaryKind,
  { full = false, readings: limit = Infinity }: SummaryUpdate = {},
): Promise<boolean> {
  const now = Date.now();
  const state = await lockSummary(tx, userId, kind);
  const type = RECORD_TYPE[kind];
  const lastData = await newestReadingTime(tx, userId, type, new Date(now - PAST_MS), new Date(now + DAY_MS));
  if (!lastData) {
    await deleteSummaries(tx, userId, kind);
    return true;
  }
  const windowStart = lastData.getTime() - 60 * DAY_MS;
  const pending = state?.pendingFrom ?? null;
  const rebuildAll = full || !state || state.schemaVersion !== SUMMARY_SCHEMA_VERSION || !state.hasBuckets || !pending;
  const from = rebuildAll ? windowStart : Math.max(windowStart, hourOf(pending.getTime()));
  // Buckets from the rebuild hour on are dropped and refilled from the records.
  await deleteBucketsFrom(tx, userId, kind, new Date(hourOf(from)));
  const window = { types: [type], from: new Date(hourOf(from)), to: lastData };
  const { readings, until } = await takeTurn(summaryReadings(tx, userId, window), limit);
  await insertBuckets(tx, userId, kind, bucketsOf(readings, kind));
  if (until !== null) {
    await postponeSummary(tx, userId, kind, new Date(until));
    return false;
  }
  await deleteBucketsBefore(tx, userId, kind, new Date(hourOf(lastData.getTime()) - KEEP_MS));
  const all = await loadBuckets(tx, userId, kind);
  const lastUploadDate = await newestUploadTime(tx, userId, type, new Date(windowStart), lastData);
  const firstData = all.length ? new Date(Math.min(...all.map((bucket) => bucket.firstTime))) : null;
  const periods = summarise(all, kind);
  const clinicCopy = clinicCopyTexts(periods, kind);
  await saveSummary(tx, {
    userId,
    kind,
    lastData,
    firstData,
    lastUploadDate,
    lastUpdatedDate: new Date(now),
    periods,
    clinicCopy,
  });
  await replacePeriodStats(tx, { userId, kind, lastData, lastUploadDate }, periodStatsRows(periods, kind));
  return true;
}

/** The readings a summary counts, in time order, as the buckets take them. */
async function* summaryReadings(tx: EntityManager, userId: string, window: ReadingFilter): AsyncGenerator<Reading[]> {
  for await (const batch of readingBatches(tx, userId, window))
    yield batch.map(({ time, value, minutes }) => ({ time: time.getTime(), mmol: value, minutes }));
}

/** Every period and its previous period as clinics see them (exportPeriod). */
function periodStatsRows(summary: SummaryPeriods, kind: SummaryKind): PeriodStatsRow[] {
  return (Object.entries(PERIODS) as [PeriodKey, number][]).flatMap(([period, days]) => [
    { period, previous: false, stats: exportPeriod(summary.periods[period], days, kind) },
    { period, previous: true, stats: exportPeriod(summary.offsetPeriods[period], days, kind) },
  ]);
}
