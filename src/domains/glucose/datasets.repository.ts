import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import type { PageArgs } from '../../kernel/paging';
import { countsByUser, newestPagesByUser, placeholders, rowDate, type SqlCondition } from '../../kernel/sql';
import { DatasetSchema, type DatasetRecord } from './dataset.entity';

/**
 * Every read and removal of the upload sessions (`datasets`); a new one is created through the
 * ORM in the service, and a closed one is written back when its transaction flushes. The
 * services hold the rules; this holds the statements.
 */

/** Datasets by id as plain snapshots, in one SELECT. */
export function datasetsByIds(em: EntityManager, ids: readonly string[]): Promise<DatasetRecord[]> {
  return em.find(DatasetSchema, { id: { $in: [...ids] } }, { disableIdentityMap: true });
}

/** The dataset, its row held (FOR UPDATE) until `tx` ends; managed, so a change to it is written at the commit. */
export function lockDataset(tx: EntityManager, id: string): Promise<DatasetRecord | null> {
  return tx.findOne(DatasetSchema, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/**
 * The dataset's state, its row held (FOR SHARE) until `tx` ends, or undefined when there is none:
 * uploads to one dataset go side by side, and a close or deletion (FOR UPDATE) waits for them.
 */
export async function shareLockedState(tx: EntityManager, id: string): Promise<string | undefined> {
  const [row] = await sqlOf(tx).rows<{ state: string }>('select state from datasets where id = ? for share', [id]);
  return row?.state;
}

export async function deleteDataset(tx: EntityManager, id: string): Promise<void> {
  await sqlOf(tx).run('delete from datasets where id = ?', [id]);
}

/** Every dataset of the user (the account's deletion). */
export async function deleteDatasetsOf(em: EntityManager, userId: string): Promise<void> {
  await sqlOf(em).run('delete from datasets where user_id = ?', [userId]);
}

const ALL: SqlCondition = { sql: 'true', params: [] };

/** A page of the datasets of many users, newest first, one more than asked, in one SELECT. */
export async function datasetPagesOf(
  em: EntityManager,
  userIds: readonly string[],
  args: PageArgs,
): Promise<DatasetRecord[][]> {
  const pages = await newestPagesByUser(em, 'datasets', ALL, userIds, args);
  return pages.map((rows) => rows.map(toDataset));
}

/** How many datasets each user has, in one SELECT. */
export function datasetCountsOf(em: EntityManager, userIds: readonly string[]): Promise<number[]> {
  return countsByUser(em, 'datasets', ALL, userIds);
}

/**
 * The time zone each user's uploads last named: the `timezone` of the newest dataset (by when it
 * was opened) that has one, in one SELECT; users whose datasets name none are left out.
 */
export async function lastTimeZonesOf(em: EntityManager, userIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await sqlOf(em).rows<{ user_id: string; timezone: string }>(
    `select distinct on (user_id) user_id, details->>'timezone' as timezone
       from datasets where user_id in (${placeholders(userIds.length)}) and details->>'timezone' is not null
      order by user_id, created_time desc, id desc`,
    userIds,
  );
  return new Map(rows.map((row) => [row.user_id, row.timezone]));
}

const toDataset = (row: Record<string, unknown>): DatasetRecord => ({
  id: row.id as string,
  userId: row.user_id as string,
  dataSetType: row.data_set_type as string,
  state: row.state as string,
  deduplicator: row.deduplicator as string,
  deviceId: (row.device_id as string | null) ?? null,
  details: row.details as Record<string, unknown>,
  createdUserId: (row.created_user_id as string | null) ?? null,
  createdTime: rowDate(row.created_time)!,
  modifiedTime: rowDate(row.modified_time),
});
