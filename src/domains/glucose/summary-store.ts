import type { EntityManager } from '@mikro-orm/postgresql';
import { rowDate } from '../../kernel/sql';
import { bucketsOf, hourOf, type HourBucket, type Reading, type SummaryKind } from './summary/buckets';
import { readingBatches } from './glucose.loaders';
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
 * outdated, and `from` lowers the point its next update rebuilds from.
 */
export async function markOutdated(tx: EntityManager, userId: string, kind: SummaryKind, from: Date): Promise<void> {
  await tx.execute(
    `insert into glucose_summaries (user_id, kind, outdated_since, pending_from, schema_version)
       values (?, ?, now(), ?, ?)
       on conflict (user_id, kind) do update set
         outdated_since = coalesce(glucose_summaries.outdated_since, now()),
         pending_from = least(glucose_summaries.pending_from, excluded.pending_from)`,
    [userId, kind, from, SUMMARY_SCHEMA_VERSION],
  );
}

interface SummaryRow {
  last_data: unknown;
  pending_from: unknown;
  schema_version: number;
}

/**
 * Brings one summary up to date (tidepool-semantics B.4–B.10), in the caller's transaction:
 * buckets from the hour of the earliest pending record onward are rebuilt from the records,
 * earlier ones kept; then every period is recomputed from the buckets. With `full`, every
 * bucket is rebuilt (repairs), which gives the same numbers.
 */
export async function updateSummary(tx: EntityManager, userId: string, kind: SummaryKind, full = false): Promise<void> {
  const now = Date.now();
  const [row] = await tx.execute<SummaryRow[]>(
    'select last_data, pending_from, schema_version from glucose_summaries where user_id = ? and kind = ? for update',
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
    return;
  }
  const windowStart = lastData.getTime() - 60 * DAY_MS;
  const pending = rowDate(row?.pending_from);
  const rebuildAll = full || !row || row.schema_version !== SUMMARY_SCHEMA_VERSION || !row.last_data || !pending;
  const from = rebuildAll ? windowStart : Math.max(windowStart, hourOf(pending.getTime()));
  // Buckets from the rebuild hour on are dropped and refilled from the records.
  await tx.execute('delete from glucose_buckets where user_id = ? and kind = ? and hour >= ?', [
    userId,
    kind,
    new Date(hourOf(from)),
  ]);
  const readings: Reading[] = [];
  const window = { types: [RECORD_TYPE[kind]], from: new Date(hourOf(from)), to: lastData };
  for await (const batch of readingBatches(tx, userId, window))
    for (const { time, value, minutes } of batch) readings.push({ time: time.getTime(), mmol: value, minutes });
  await storeBuckets(tx, userId, kind, bucketsOf(readings, kind));
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
       outdated_since, pending_from, periods, schema_version)
     values (?, ?, ?, ?, ?, ?, null, null, ?, ?)
     on conflict (user_id, kind) do update set last_data = excluded.last_data, first_data = excluded.first_data,
       last_upload_date = excluded.last_upload_date, last_updated_date = excluded.last_updated_date,
       outdated_since = null, pending_from = null, periods = excluded.periods, schema_version = excluded.schema_version`,
    [userId, kind, lastData, firstData, lastUploadDate, new Date(now), JSON.stringify(summary), SUMMARY_SCHEMA_VERSION],
  );
  await storePeriodStats(tx, userId, kind, summary, lastData, lastUploadDate);
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
