import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import { placeholders, rowDate } from '../../kernel/sql';
import type { ClinicCopyTexts } from './clinic-copy';
import { ClinicCopyCache, clinicCopyCacheBytes } from './clinic-copy-cache';
import { SUMMARY_SCHEMA_VERSION } from './glucose-summary.entity';
import { EXPORTED_STAT_NAMES, STAT_COLUMNS } from './period-stats';
import type { HourBucket, SummaryKind } from './summary/buckets';
import type { ExportedPeriod } from './summary/export';
import type { PeriodKey, SummaryPeriods } from './summary/periods';

/**
 * Every statement on the summaries: the summary rows and their queue (`glucose_summaries`), the
 * hourly buckets they are built from (`glucose_buckets`), the periods as clinics read them
 * (`glucose_period_stats`), and the NOTIFY that announces a change. summary-store.ts holds the
 * rules of an update; this holds the statements.
 */

type StoredPeriods = SummaryPeriods['periods'];

/** A stored summary row: its dates and current periods (the previous ones: previousPeriodsOf). */
export interface StoredSummary {
  kind: SummaryKind;
  lastData: Date | null;
  firstData: Date | null;
  lastUploadDate: Date | null;
  lastUpdatedDate: Date | null;
  outdatedSince: Date | null;
  periods: StoredPeriods | null;
}

/**
 * Marks the summary outdated (and queues it unless already queued), lowering the point its next
 * update rebuilds from to `from`; creates the row when the user has none of this kind.
 */
export async function markOutdated(tx: EntityManager, userId: string, kind: SummaryKind, from: Date): Promise<void> {
  await sqlOf(tx).run(
    `insert into glucose_summaries (user_id, kind, outdated_since, queued_at, pending_from, schema_version)
       values (?, ?, now(), now(), ?, ?)
       on conflict (user_id, kind) do update set
         outdated_since = coalesce(glucose_summaries.outdated_since, now()),
         queued_at = coalesce(glucose_summaries.queued_at, now()),
         pending_from = least(glucose_summaries.pending_from, excluded.pending_from)`,
    [userId, kind, from, SUMMARY_SCHEMA_VERSION],
  );
}

/** Where a summary's update stands: undefined when it has no row. */
export interface SummaryState {
  pendingFrom: Date | null;
  schemaVersion: number;
  /** It was built before, or is being rebuilt over several turns up to pendingFrom. */
  hasBuckets: boolean;
}

/** The summary's state, its row held (FOR UPDATE) until `tx` ends. */
export async function lockSummary(
  tx: EntityManager,
  userId: string,
  kind: SummaryKind,
): Promise<SummaryState | undefined> {
  const [row] = await sqlOf(tx).rows<{ pending_from: unknown; schema_version: number; has_buckets: boolean }>(
    `select pending_from, schema_version,
       exists (select 1 from glucose_buckets b where b.user_id = s.user_id and b.kind = s.kind) as has_buckets
       from glucose_summaries s where user_id = ? and kind = ? for update`,
    [userId, kind],
  );
  return (
    row && { pendingFrom: rowDate(row.pending_from), schemaVersion: row.schema_version, hasBuckets: row.has_buckets }
  );
}

/**
 * The outdated summary longest in the queue, its row held until `tx` ends; rows other
 * transactions hold are skipped (SKIP LOCKED), so instances share the queue without waiting.
 */
export async function nextOutdatedSummary(
  tx: EntityManager,
): Promise<{ userId: string; kind: SummaryKind; outdatedSince: Date | null } | undefined> {
  const [next] = await sqlOf(tx).rows<{ user_id: string; kind: SummaryKind; outdated_since: unknown }>(
    `select user_id, kind, outdated_since from glucose_summaries where outdated_since is not null
      order by queued_at limit 1 for update skip locked`,
  );
  return next && { userId: next.user_id, kind: next.kind, outdatedSince: rowDate(next.outdated_since) };
}

/**
 * Keeps a summary whose rebuild goes on at the next turn outdated, rebuilding from `until`, at
 * the back of the queue. clock_timestamp: behind every summary outdated while this turn ran, not
 * only before it began.
 */
export async function postponeSummary(
  tx: EntityManager,
  userId: string,
  kind: SummaryKind,
  until: Date,
): Promise<void> {
  await sqlOf(tx).run(
    `update glucose_summaries set pending_from = ?, queued_at = clock_timestamp(), schema_version = ?
      where user_id = ? and kind = ?`,
    [until, SUMMARY_SCHEMA_VERSION, userId, kind],
  );
}

/** An up-to-date summary as written: out of the queue, nothing pending. */
export interface SummaryWrite {
  userId: string;
  kind: SummaryKind;
  lastData: Date;
  firstData: Date | null;
  lastUploadDate: Date | null;
  lastUpdatedDate: Date;
  periods: SummaryPeriods;
  clinicCopy: ClinicCopyTexts;
}

export async function saveSummary(tx: EntityManager, summary: SummaryWrite): Promise<void> {
  const { userId, kind, lastData, firstData, lastUploadDate, lastUpdatedDate, periods, clinicCopy } = summary;
  await sqlOf(tx).run(
    `insert into glucose_summaries (user_id, kind, last_data, first_data, last_upload_date, last_updated_date,
       outdated_since, queued_at, pending_from, periods, clinic_periods, clinic_offset_periods, schema_version)
     values (?, ?, ?, ?, ?, ?, null, null, null, ?, ?, ?, ?)
     on conflict (user_id, kind) do update set last_data = excluded.last_data, first_data = excluded.first_data,
       last_upload_date = excluded.last_upload_date, last_updated_date = excluded.last_updated_date,
       outdated_since = null, queued_at = null, pending_from = null, periods = excluded.periods,
       clinic_periods = excluded.clinic_periods, clinic_offset_periods = excluded.clinic_offset_periods,
       schema_version = excluded.schema_version`,
    [
      userId,
      kind,
      lastData,
      firstData,
      lastUploadDate,
      lastUpdatedDate,
      JSON.stringify(periods),
      clinicCopy.current,
      clinicCopy.previous,
      SUMMARY_SCHEMA_VERSION,
    ],
  );
}

/**
 * Deletes the user's summaries with their buckets and period statistics: of one kind, or of
 * every kind when `kind` is null (the account's deletion).
 */
export async function deleteSummaries(em: EntityManager, userId: string, kind: SummaryKind | null): Promise<void> {
  const where = kind === null ? 'user_id = ?' : 'user_id = ? and kind = ?';
  const params = kind === null ? [userId] : [userId, kind];
  const sql = sqlOf(em);
  await sql.run(`delete from glucose_buckets where ${where}`, params);
  await sql.run(`delete from glucose_summaries where ${where}`, params);
  await sql.run(`delete from glucose_period_stats where ${where}`, params);
}

/** Drops the summary's buckets from the hour `from` on. */
export async function deleteBucketsFrom(
  tx: EntityManager,
  userId: string,
  kind: SummaryKind,
  from: Date,
): Promise<void> {
  await sqlOf(tx).run('delete from glucose_buckets where user_id = ? and kind = ? and hour >= ?', [userId, kind, from]);
}

/** Drops the summary's buckets before the hour `before`. */
export async function deleteBucketsBefore(
  tx: EntityManager,
  userId: string,
  kind: SummaryKind,
  before: Date,
): Promise<void> {
  await sqlOf(tx).run('delete from glucose_buckets where user_id = ? and kind = ? and hour < ?', [
    userId,
    kind,
    before,
  ]);
}

/** Writes buckets 500 to a statement. */
export async function insertBuckets(
  tx: EntityManager,
  userId: string,
  kind: SummaryKind,
  buckets: readonly HourBucket[],
): Promise<void> {
  for (let start = 0; start < buckets.length; start += 500) {
    const slice = buckets.slice(start, start + 500);
    await sqlOf(tx).run(
      `insert into glucose_buckets (user_id, kind, hour, state) values ${slice.map(() => '(?, ?, ?, ?)').join(', ')}`,
      slice.flatMap(({ hour, ...state }) => [userId, kind, new Date(hour), JSON.stringify(state)]),
    );
  }
}

export async function loadBuckets(tx: EntityManager, userId: string, kind: SummaryKind): Promise<HourBucket[]> {
  const rows = await sqlOf(tx).rows<{ hour: unknown; state: Omit<HourBucket, 'hour'> }>(
    'select hour, state from glucose_buckets where user_id = ? and kind = ?',
    [userId, kind],
  );
  return rows.map((row) => ({ ...row.state, hour: rowDate(row.hour)!.getTime() }));
}

/** One row of glucose_period_stats: a period, or the one before it, as clinics see it. */
export interface PeriodStatsRow {
  period: PeriodKey;
  previous: boolean;
  stats: ExportedPeriod;
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

/** Replaces the user's glucose_period_stats rows of this kind, NULL for each statistic a row leaves out. */
export async function replacePeriodStats(
  tx: EntityManager,
  {
    userId,
    kind,
    lastData,
    lastUploadDate,
  }: { userId: string; kind: SummaryKind; lastData: Date; lastUploadDate: Date | null },
  rows: readonly PeriodStatsRow[],
): Promise<void> {
  await sqlOf(tx).run('delete from glucose_period_stats where user_id = ? and kind = ?', [userId, kind]);
  const values = rows.map(({ period, previous, stats }) => [
    userId,
    kind,
    period,
    previous,
    lastData,
    lastUploadDate,
    ...EXPORTED_STAT_NAMES.map((name) => stats[name] ?? null),
    stats.glycemiaRiskZone ?? null,
  ]);
  const placeholders = `(${PERIOD_STATS_COLUMNS.map(() => '?').join(', ')})`;
  await sqlOf(tx).run(
    `insert into glucose_period_stats (${PERIOD_STATS_COLUMNS.map((column) => `"${column}"`).join(', ')})
     values ${values.map(() => placeholders).join(', ')}`,
    values.flat(),
  );
}

/** The columns every summary read selects first: its kind and dates. */
const SUMMARY_DATES = 'user_id, kind, last_data, first_data, last_upload_date, last_updated_date, outdated_since';

/** A summary row's kind and dates (the columns of SUMMARY_DATES). */
const summaryDatesOf = (row: Record<string, unknown>): Omit<StoredSummary, 'periods'> => ({
  kind: row.kind as SummaryKind,
  lastData: rowDate(row.last_data),
  firstData: rowDate(row.first_data),
  lastUploadDate: rowDate(row.last_upload_date),
  lastUpdatedDate: rowDate(row.last_updated_date),
  outdatedSince: rowDate(row.outdated_since),
});

/** Each of `userIds`' rows, made into `T`, in the order asked (none for a user without one). */
function byUserOf<T>(
  userIds: readonly string[],
  rows: Record<string, unknown>[],
  make: (row: Record<string, unknown>) => T,
) {
  const byUser = new Map<string, T[]>(userIds.map((id) => [id, []]));
  for (const row of rows) byUser.get(row.user_id as string)?.push(make(row));
  return userIds.map((id) => byUser.get(id) ?? []);
}

/** The CGM and BGM summaries of many users, current periods only (half of a stored summary), in one SELECT. */
export async function summariesOf(em: EntityManager, userIds: readonly string[]): Promise<StoredSummary[][]> {
  const rows = await sqlOf(em).rows(
    `select ${SUMMARY_DATES}, periods->'periods' as periods
       from glucose_summaries where user_id in (${placeholders(userIds.length)})`,
    userIds,
  );
  return byUserOf(userIds, rows, (row) => ({ ...summaryDatesOf(row), periods: row.periods as StoredPeriods | null }));
}

/** A summary's dates and one side of its clinic copy (clinic-copy.ts). */
export interface StoredClinicCopy extends Omit<StoredSummary, 'periods'> {
  /**
   * The JSON text of the side's periods, as bytes (clinic-copy-cache.ts); null for a summary
   * written before the copy was kept.
   */
  text: Buffer | null;
  /** The side's full periods, read only where `text` is null, to make the copy from. */
  periods: StoredPeriods | null;
}

/**
 * One cache of kept copies per database (keyed by the ORM's configuration, which every entity
 * manager of it shares): revisions come from each database's own sequence, and a test process
 * runs several.
 */
const copyCaches = new WeakMap<object, ClinicCopyCache<StoredClinicCopy>>();

function clinicCopyCacheOf(em: EntityManager): ClinicCopyCache<StoredClinicCopy> {
  let cache = copyCaches.get(em.config);
  if (!cache) copyCaches.set(em.config, (cache = new ClinicCopyCache(clinicCopyCacheBytes())));
  return cache;
}

/**
 * Each user's summaries with one side of their clinic copy, current or `previous`, in one
 * SELECT: the text as it is, without reading the summaries' full periods (but where it is missing).
 * Each copy with a text is kept by its revision for the pages after (keptClinicCopies), and a copy
 * kept already is answered as the same object.
 */
export async function clinicCopiesOf(
  em: EntityManager,
  userIds: readonly string[],
  previous: boolean,
): Promise<StoredClinicCopy[][]> {
  const [copy, side] = previous ? ['clinic_offset_periods', 'offsetPeriods'] : ['clinic_periods', 'periods'];
  const rows = await sqlOf(em).rows(
    `select ${SUMMARY_DATES}, revision::text as revision, ${copy} as text,
            case when ${copy} is null then periods->'${side}' end as periods
       from glucose_summaries where user_id in (${placeholders(userIds.length)}) and periods is not null`,
    userIds,
  );
  const cache = clinicCopyCacheOf(em);
  return byUserOf(userIds, rows, (row) => {
    const periods = row.periods as StoredPeriods | null;
    if (row.text == null) return { ...summaryDatesOf(row), text: null, periods };
    // A copy kept already is answered as it was kept: its text is not copied into bytes again.
    return cache.keep(row.revision as string, previous, () => ({
      ...summaryDatesOf(row),
      text: Buffer.from(row.text as string),
      periods,
    }));
  });
}

const JOINED_KINDS: readonly SummaryKind[] = ['cgm', 'bgm'];

/**
 * The revisions of the clinic copies of the user in `userIdColumn` (one column per kind,
 * `cgm_revision` and `bgm_revision`, null without a summary of that kind), inside another
 * domain's statement: the patient list reads its page's in the page's own statement, and
 * keptClinicCopies finds the copies they name.
 */
export function clinicCopyJoins(userIdColumn: string): { columns: string; joins: string } {
  return {
    columns: JOINED_KINDS.map((kind) => `${kind}_copy.revision as ${kind}_revision`).join(', '),
    joins: JOINED_KINDS.map(
      (kind) =>
        `left join lateral (select revision::text as revision from glucose_summaries
           where user_id = ${userIdColumn} and kind = '${kind}' and periods is not null offset 0) ${kind}_copy on true`,
    ).join(' '),
  };
}

/** The revisions clinicCopyJoins put on a row of another domain's statement, one per summary. */
export function clinicCopyRevisionsOf(row: Record<string, unknown>): string[] {
  return JOINED_KINDS.map((kind) => row[`${kind}_revision`] as string | null).filter((revision) => revision !== null);
}

/**
 * Each user's clinic copies named by revision (clinicCopyRevisionsOf), as kept from an earlier read
 * (clinic-copy-cache.ts). Users with one not kept (never read, forgotten, or without a text) are
 * read again whole, in one SELECT for them all (clinicCopiesOf), which keeps theirs for the next
 * page: a copy that changed since the page was read then shows as it is now.
 */
export async function keptClinicCopies(
  em: EntityManager,
  previous: boolean,
  users: readonly { userId: string; revisions: string[] }[],
): Promise<{ userId: string; copies: StoredClinicCopy[] }[]> {
  const cache = clinicCopyCacheOf(em);
  const kept = users.map(({ revisions }) => {
    const copies = revisions.map((revision) => cache.get(revision, previous));
    return copies.every((copy) => copy !== undefined) ? copies : undefined;
  });
  const unkept = users.filter((_, index) => !kept[index]).map(({ userId }) => userId);
  const reread = unkept.length ? await clinicCopiesOf(em, unkept, previous) : [];
  const rereadByUser = new Map(unkept.map((userId, index) => [userId, reread[index]!]));
  return users.map(({ userId }, index) => ({ userId, copies: kept[index] ?? rereadByUser.get(userId)! }));
}

/** Each user's previous periods by kind, in one SELECT. */
export async function previousPeriodsOf(
  em: EntityManager,
  userIds: readonly string[],
): Promise<Partial<Record<SummaryKind, StoredPeriods>>[]> {
  const rows = await sqlOf(em).rows<{ user_id: string; kind: SummaryKind; previous: StoredPeriods | null }>(
    `select user_id, kind, periods->'offsetPeriods' as previous
       from glucose_summaries where user_id in (${placeholders(userIds.length)})`,
    userIds,
  );
  const byUser = new Map<string, Partial<Record<SummaryKind, StoredPeriods>>>(userIds.map((id) => [id, {}]));
  for (const row of rows) if (row.previous) byUser.get(row.user_id)![row.kind] = row.previous;
  return userIds.map((id) => byUser.get(id)!);
}

/** Sends `payload` on the NOTIFY `channel`, heard once `tx` commits. */
export async function notify(tx: EntityManager, channel: string, payload: string): Promise<void> {
  await sqlOf(tx).rows('select pg_notify(?, ?)', [channel, payload]);
}

/**
 * Joins for other domains' statements: a clinic's TIDE report and patient list read summaries
 * inside their own single statement, and the SQL on this domain's tables stays here.
 */
export const summaryJoins = {
  /**
   * `alias`: the current CGM period row, of the period bound by one `?` placeholder, of the user
   * in `userIdColumn` (its columns null when there is none).
   */
  cgmPeriod: (alias: string, userIdColumn: string): string =>
    `left join glucose_period_stats ${alias} on ${alias}.user_id = ${userIdColumn} and ${alias}.kind = 'cgm'` +
    ` and ${alias}.period = ? and ${alias}.previous = false`,
  /** `alias`: the summary's own dates (first_data, outdated_since) of `kind`, one primary-key probe. */
  summaryDates: (alias: string, userIdColumn: string, kind: SummaryKind): string =>
    `left join lateral (select first_data, outdated_since from glucose_summaries g` +
    ` where g.user_id = ${userIdColumn} and g.kind = '${kind}' offset 0) ${alias} on true`,
};
