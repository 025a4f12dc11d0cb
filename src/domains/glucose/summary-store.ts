import type { EntityManager } from '@mikro-orm/postgresql';
import { rowDate } from '../../kernel/sql';
import { bucketsOf, hourOf, type HourBucket, type Reading, type SummaryKind } from './summary/buckets';
import { takeTurn } from './summary/turns';
import { readingBatches, type ReadingFilter } from './glucose.loaders';
import { PERIODS, summarise, type PeriodKey, type SummaryPeriods } from './summary/periods';
import { exportPeriod } from './summary/export';
import { SUMMARY_SCHEMA_VERSION } from './glucose-summary.entity';
import { EXPORTED_STAT_NAMES, STAT_COLUMNS } from './period-stats';

/** Which record type each summary reads. */
export const RECORD_TYPE: Record<SummaryKind, 'cbg' | 'smbg'> = { cgm: 'cbg', bgm: 'smbg' };
export const KIND_OF: Record<string, SummaryKind> = { cbg: 'cgm', smbg: 'bgm' };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Buckets older than this before the newest are dropped (Tidepool's HoursAgoToKeep). */
const KEEP_MS = 1440 * HOUR_MS;
/** Records count toward summaries when within two years back and a day ahead of now (B.1). */
const PAST_MS = 2 * 365 * DAY_MS;

/**
 * Records that became active (or stopped counting) after the summary last looked: it is marked
 * outdated (and joins the updater's queue unless already in it), and `from` lowers the point its
 * next update rebuilds from.
 */
export async function markOutdated(tx: EntityManager, userId: string, kind: SummaryKind, from: Date): Promise<void> {
  await tx.execute(
    `insert into glucose_summaries (user_id, kind, outdated_since, queued_at, pending_from, schema_version)
       values (?, ?, now(), now(), ?, ?)
       on conflict (user_id, kind) do update set
         outdated_since = coalesce(glucose_summaries.outdated_since, now()),
         queued_at = coalesce(glucose_summaries.queued_at, now()),
         pending_from = least(glucose_summaries.pending_from, excluded.pending_from)`,
    [userId, kind, from, SUMMARY_SCHEMA_VERSION],
  );
}

interface SummaryRow {
  pending_from: unknown;
  schema_version: number;
  has_buckets: boolean;
}

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
 * Brings one summary up to date (tidepool-semantics B.4–B.10), in the caller's transaction:
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
  // A summary with buckets was built before, or is being rebuilt over several calls up to pending_from.
  const [row] = await tx.execute<SummaryRow[]>(
    `select pending_from, schema_version,
       exists (select 1 from glucose_buckets b where b.user_id = s.user_id and b.kind = s.kind) as has_buckets
       from glucose_summaries s where user_id = ? and kind = ? for update`,
    [userId, kind],
  );
  const [newest] = await tx.execute<{ last_data: unknown }[]>(
    `select max(time) as last_data from glucose_readings
      where user_id = ? and type = ? and active and time >= ? and time <= ?`,
    [userId, RECORD_TYPE[kind], new Date(now - PAST_MS), new Date(now + DAY_MS)],
  );
  const lastData = rowDate(newest?.last_data);
  if (!lastData) {
    await tx.execute('delete from glucose_buckets where user_id = ? and kind = ?', [userId, kind]);
    await tx.execute('delete from glucose_summaries where user_id = ? and kind = ?', [userId, kind]);
    await tx.execute('delete from glucose_period_stats where user_id = ? and kind = ?', [userId, kind]);
    return true;
  }
  const windowStart = lastData.getTime() - 60 * DAY_MS;
  const pending = rowDate(row?.pending_from);
  const rebuildAll = full || !row || row.schema_version !== SUMMARY_SCHEMA_VERSION || !row.has_buckets || !pending;
  const from = rebuildAll ? windowStart : Math.max(windowStart, hourOf(pending.getTime()));
  // Buckets from the rebuild hour on are dropped and refilled from the records.
  await tx.execute('delete from glucose_buckets where user_id = ? and kind = ? and hour >= ?', [
    userId,
    kind,
    new Date(hourOf(from)),
  ]);
  const window = { types: [RECORD_TYPE[kind]], from: new Date(hourOf(from)), to: lastData };
  const { readings, until } = await takeTurn(summaryReadings(tx, userId, window), limit);
  await storeBuckets(tx, userId, kind, bucketsOf(readings, kind));
  if (until !== null) {
    // clock_timestamp: behind every summary outdated while this turn ran, not only before it began.
    await tx.execute(
      `update glucose_summaries set pending_from = ?, queued_at = clock_timestamp(), schema_version = ?
        where user_id = ? and kind = ?`,
      [new Date(until), SUMMARY_SCHEMA_VERSION, userId, kind],
    );
    return false;
  }
  const newestHour = hourOf(lastData.getTime());
  await tx.execute('delete from glucose_buckets where user_id = ? and kind = ? and hour < ?', [
    userId,
    kind,
    new Date(newestHour - KEEP_MS),
  ]);
  const all = await loadBuckets(tx, userId, kind);
  const [upload] = await tx.execute<{ last_upload: unknown }[]>(
    `select max(created_time) as last_upload from glucose_readings
      where user_id = ? and type = ? and time >= ? and time <= ?`,
    [userId, RECORD_TYPE[kind], new Date(windowStart), lastData],
  );
  const firstData = all.length ? new Date(Math.min(...all.map((bucket) => bucket.firstTime))) : null;
  const summary = summarise(all, kind);
  const lastUploadDate = rowDate(upload?.last_upload);
  await tx.execute(
    `insert into glucose_summaries (user_id, kind, last_data, first_data, last_upload_date, last_updated_date,
       outdated_since, queued_at, pending_from, periods, schema_version)
     values (?, ?, ?, ?, ?, ?, null, null, null, ?, ?)
     on conflict (user_id, kind) do update set last_data = excluded.last_data, first_data = excluded.first_data,
       last_upload_date = excluded.last_upload_date, last_updated_date = excluded.last_updated_date,
       outdated_since = null, queued_at = null, pending_from = null, periods = excluded.periods,
       schema_version = excluded.schema_version`,
    [userId, kind, lastData, firstData, lastUploadDate, new Date(now), JSON.stringify(summary), SUMMARY_SCHEMA_VERSION],
  );
  await storePeriodStats(tx, userId, kind, summary, lastData, lastUploadDate);
  return true;
}

/** The readings a summary counts, in time order, as the buckets take them. */
async function* summaryReadings(tx: EntityManager, userId: string, window: ReadingFilter): AsyncGenerator<Reading[]> {
  for await (const batch of readingBatches(tx, userId, window))
    yield batch.map(({ time, value, minutes }) => ({ time: time.getTime(), mmol: value, minutes }));
}

const PERIOD_STATS_COLUMNS = [
  'user_id',
  'kind',
  'period',
  'previous',
  'last_data',
  'last_upload_date',
  ...EXPORTED_STAT_NAMES.map((name) => STAT_COLUMNS[name]),
  'glycemia_risk_zone',
];

/**
 * Replaces the user's glucose_period_stats rows of this kind: every period and its previous
 * period as clinics see them (exportPeriod), NULL for each statistic it leaves out.
 */
async function storePeriodStats(
  tx: EntityManager,
  userId: string,
  kind: SummaryKind,
  summary: SummaryPeriods,
  lastData: Date,
  lastUploadDate: Date | null,
): Promise<void> {
  await tx.execute('delete from glucose_period_stats where user_id = ? and kind = ?', [userId, kind]);
  const rows: unknown[][] = [];
  for (const [key, days] of Object.entries(PERIODS) as [PeriodKey, number][]) {
    for (const [previous, period] of [
      [false, summary.periods[key]],
      [true, summary.offsetPeriods[key]],
    ] as const) {
      const exported = exportPeriod(period, days, kind);
      rows.push([
        userId,
        kind,
        key,
        previous,
        lastData,
        lastUploadDate,
        ...EXPORTED_STAT_NAMES.map((name) => exported[name] ?? null),
        exported.glycemiaRiskZone ?? null,
      ]);
    }
  }
  const placeholders = `(${PERIOD_STATS_COLUMNS.map(() => '?').join(', ')})`;
  await tx.execute(
    `insert into glucose_period_stats (${PERIOD_STATS_COLUMNS.map((column) => `"${column}"`).join(', ')})
     values ${rows.map(() => placeholders).join(', ')}`,
    rows.flat(),
  );
}

async function storeBuckets(
  tx: EntityManager,
  userId: string,
  kind: SummaryKind,
  buckets: HourBucket[],
): Promise<void> {
  for (let start = 0; start < buckets.length; start += 500) {
    const slice = buckets.slice(start, start + 500);
    await tx.execute(
      `insert into glucose_buckets (user_id, kind, hour, state) values ${slice.map(() => '(?, ?, ?, ?)').join(', ')}`,
      slice.flatMap(({ hour, ...state }) => [userId, kind, new Date(hour), JSON.stringify(state)]),
    );
  }
}

async function loadBuckets(tx: EntityManager, userId: string, kind: SummaryKind): Promise<HourBucket[]> {
  const rows = await tx.execute<{ hour: unknown; state: Omit<HourBucket, 'hour'> }[]>(
    'select hour, state from glucose_buckets where user_id = ? and kind = ?',
    [userId, kind],
  );
  return rows.map((row) => ({ ...row.state, hour: rowDate(row.hour)!.getTime() }));
}
