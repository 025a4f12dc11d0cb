import type { PageArgs } from '../../kernel/paging';
import type { Scope } from '../../kernel/scope';
import { ClinicSchema, type ClinicRecord } from './clinic.entity';

/** Which clinics a list holds: a member's (memberId), one share code's, and the list filters. */
export interface ClinicQuery {
  memberId?: string | null;
  shareCode?: string | null;
  createdTimeStart?: Date | null;
  createdTimeEnd?: Date | null;
  ehrEnabled?: boolean | null;
}

function where(query: ClinicQuery): { sql: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    conditions.push(sql);
    params.push(...values);
  };
  if (query.memberId != null)
    add('exists (select 1 from clinicians m where m.clinic_id = c.id and m.user_id = ?)', query.memberId);
  if (query.shareCode != null) add('c.share_code = ?', query.shareCode);
  // As Tidepool filters: the start inclusive, the end exclusive.
  if (query.createdTimeStart != null) add('c.created_time >= ?', query.createdTimeStart);
  if (query.createdTimeEnd != null) add('c.created_time < ?', query.createdTimeEnd);
  if (query.ehrEnabled != null) add('c.ehr_enabled = ?', query.ehrEnabled);
  return { sql: conditions.length ? conditions.join(' and ') : 'true', params };
}

/** A page of clinics, oldest first (then by id), one row more than asked, past `offset` of them. */
export async function clinicPage(
  scope: Scope,
  query: ClinicQuery,
  { first, after, offset = 0 }: PageArgs,
): Promise<ClinicRecord[]> {
  const { sql, params } = where(query);
  const keyset = after ? ' and (c.created_time, c.id) > (?, ?)' : '';
  const rows = await scope.em
    .getConnection()
    .execute<Record<string, unknown>[]>(
      `select c.* from clinics c where ${sql}${keyset} order by c.created_time, c.id limit ? offset ?`,
      [...params, ...(after ? [new Date(after[0]), after[1]] : []), first + 1, offset],
    );
  return rows.map((row) => scope.em.map(ClinicSchema, row));
}

export async function countClinics(scope: Scope, query: ClinicQuery): Promise<number> {
  const { sql, params } = where(query);
  const [row] = await scope.em
    .getConnection()
    .execute<{ count: string }[]>(`select count(*) as count from clinics c where ${sql}`, params);
  return Number(row.count);
}
