import type { EntityManager } from '@mikro-orm/postgresql';
import { columnsOf, recordOf, sqlOf } from '../../infra/database/sql-runner';
import type { PageArgs } from '../../kernel/paging';
import { placeholders } from '../../kernel/sql';
import { ClinicSchema, type ClinicRecord, type PatientTagValue } from './clinic.entity';
import type { ClinicianRole } from './clinician.entity';

/**
 * Every statement on the clinics themselves (`clinics`) and their patient tags (`patient_tags`),
 * and the clinic read with the caller's roles (`clinicians`, whose statements are otherwise in
 * clinicians.repository.ts). The services hold the rules; this holds the statements.
 */

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
  em: EntityManager,
  query: ClinicQuery,
  { first, after, offset = 0 }: PageArgs,
): Promise<ClinicRecord[]> {
  const { sql, params } = where(query);
  const keyset = after ? ' and (c.created_time, c.id) > (?, ?)' : '';
  const rows = await sqlOf(em).rows(
    `select c.* from clinics c where ${sql}${keyset} order by c.created_time, c.id limit ? offset ?`,
    [...params, ...(after ? [new Date(after[0]), after[1]] : []), first + 1, offset],
  );
  return rows.map((row) => em.map(ClinicSchema, row));
}

export async function countClinics(em: EntityManager, query: ClinicQuery): Promise<number> {
  const { sql, params } = where(query);
  const [row] = await sqlOf(em).rows<{ count: string }>(`select count(*) as count from clinics c where ${sql}`, params);
  return Number(row.count);
}

/** A clinic with what a request on it asks next: the caller's roles in it and its patient tags. */
export interface ClinicInContext {
  clinic: ClinicRecord;
  /** The caller's roles in the clinic; null when it is not a clinician of it, or no user called. */
  callerRoles: ClinicianRole[] | null;
  /** The clinic's patient tags, oldest first. */
  tags: PatientTagValue[];
}

/**
 * Clinics by id with the caller's roles in each (`callerId`, null for none) and their patient
 * tags, in one SELECT: nearly every request on a clinic checks the caller's membership, and a
 * patient page resolves its tags, right after reading the clinic.
 */
export async function clinicsInContext(
  em: EntityManager,
  ids: readonly string[],
  callerId: string | null,
): Promise<ClinicInContext[]> {
  // Prepared, as most requests on a clinic read it.
  const rows = await sqlOf(em).reusable<Record<string, unknown>>(
    'clinics_in_context',
    `select ${columnsOf(em, ClinicSchema, 'c')},
            (select m.roles from clinicians m where m.clinic_id = c.id and m.user_id = $1) as caller_roles,
            coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name) order by t.created_time, t.id)
                        from patient_tags t where t.clinic_id = c.id), '[]') as tag_list
       from clinics c where c.id = any($2::text[])`,
    [callerId, ids],
  );
  return rows.map(({ caller_roles, tag_list, ...row }) => ({
    clinic: recordOf<ClinicRecord>(em, ClinicSchema, row),
    callerRoles: caller_roles as ClinicianRole[] | null,
    tags: tag_list as PatientTagValue[],
  }));
}

export function clinicByShareCode(em: EntityManager, shareCode: string): Promise<ClinicRecord | null> {
  return em.findOne(ClinicSchema, { shareCode });
}

/** Writes a new clinic; a share code taken breaks its unique index (isUniqueViolation). */
export async function insertClinic(tx: EntityManager, clinic: ClinicRecord): Promise<void> {
  await tx.insert(ClinicSchema, clinic);
}

export async function updateClinic(em: EntityManager, id: string, fields: Partial<ClinicRecord>): Promise<void> {
  await em.nativeUpdate(ClinicSchema, { id }, fields);
}

/** Holds the clinic's row (FOR UPDATE) until `tx` ends. */
export async function lockClinic(tx: EntityManager, id: string): Promise<void> {
  await sqlOf(tx).rows('select id from clinics where id = ? for update', [id]);
}

/** The patient tags of many clinics, oldest first, in one SELECT. */
export function tagsOfClinics(
  em: EntityManager,
  clinicIds: readonly string[],
): Promise<{ id: string; clinic_id: string; name: string }[]> {
  return sqlOf(em).rows(
    `select id, clinic_id, name from patient_tags where clinic_id in (${placeholders(clinicIds.length)}) order by created_time, id`,
    clinicIds,
  );
}

export async function countTags(tx: EntityManager, clinicId: string): Promise<number> {
  const [{ count }] = await sqlOf(tx).rows<{ count: string }>(
    'select count(*) as count from patient_tags where clinic_id = ?',
    [clinicId],
  );
  return Number(count);
}

/** Writes a tag; a name the clinic already has (ignoring case) breaks its unique index (isUniqueViolation). */
export async function insertTag(tx: EntityManager, clinicId: string, tag: PatientTagValue): Promise<void> {
  await sqlOf(tx).run('insert into patient_tags (id, clinic_id, name, created_time) values (?, ?, ?, ?)', [
    tag.id,
    clinicId,
    tag.name,
    new Date(),
  ]);
}

/** Renames a tag: false when the clinic has no such tag. A name taken breaks the unique index. */
export async function renameTag(em: EntityManager, clinicId: string, tag: PatientTagValue): Promise<boolean> {
  return (
    (await sqlOf(em).run('update patient_tags set name = ? where id = ? and clinic_id = ?', [
      tag.name,
      tag.id,
      clinicId,
    ])) > 0
  );
}

/** Deletes a tag, answering it (null: the clinic has no such tag). */
export async function deleteTag(tx: EntityManager, clinicId: string, tagId: string): Promise<PatientTagValue | null> {
  const [tag] = await sqlOf(tx).rows<PatientTagValue>(
    'delete from patient_tags where id = ? and clinic_id = ? returning id, name',
    [tagId, clinicId],
  );
  return tag ?? null;
}
