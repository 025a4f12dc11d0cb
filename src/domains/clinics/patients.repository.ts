import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import { arrayLiteral, rowDate } from '../../kernel/sql';
import type { Permission } from '../permissions/permission.model';
import type { ClinicPatientRecord, PatientReview } from './clinic-patient.entity';

/**
 * Every statement on a clinic's patient records (`clinic_patients`) but the list's pages, counts
 * and exports (patient-list.repository.ts) and the data sources (tide/tide.repository.ts). The
 * services hold the rules; this holds the statements.
 */

/** A patient record as the domain reads it, with its sort value in a list (null elsewhere). */
export type PatientRow = ClinicPatientRecord & { sortValue: string | null };

/** The record a new patient starts with. */
export interface NewPatientRecord {
  fullName: string;
  birthDate: string | null;
  email: string | null;
  mrn: string | null;
  tags: string[];
}

/** Whether an insert or update broke a unique constraint, raised by the ORM or straight from the driver. */
export const isUniqueViolation = (error: unknown): boolean =>
  error instanceof UniqueConstraintViolationException || (error as { code?: string } | null)?.code === '23505';

/** The columns of a patient row; the birth date as text (`YYYY-MM-DD`), not a driver Date at local midnight. */
export const PATIENT_COLUMNS =
  'clinic_id, user_id, full_name, birth_date::text as birth_date, email, mrn, tags, permissions, reviews, last_reviewed, created_time, updated_time';

/** A row of clinic_patients (selected as PATIENT_COLUMNS) as the domain reads it. */
export function toPatient(row: Record<string, unknown>): PatientRow {
  return {
    clinicId: row.clinic_id as string,
    userId: row.user_id as string,
    fullName: row.full_name as string,
    birthDate: (row.birth_date as string | null) ?? null,
    email: (row.email as string | null) ?? null,
    mrn: (row.mrn as string | null) ?? null,
    tags: row.tags as string[],
    permissions: row.permissions as ClinicPatientRecord['permissions'],
    reviews: row.reviews as ClinicPatientRecord['reviews'],
    lastReviewed: rowDate(row.last_reviewed),
    createdTime: rowDate(row.created_time)!,
    updatedTime: rowDate(row.updated_time)!,
    sortValue: (row.sort_value as string | null) ?? null,
  } as PatientRow;
}

/** Patient records by (clinic, user) pairs, in one SELECT. */
export async function patientsByKeys(em: EntityManager, pairs: readonly [string, string][]): Promise<PatientRow[]> {
  const rows = await sqlOf(em).rows(
    `select ${PATIENT_COLUMNS}, null as sort_value from clinic_patients
      where (clinic_id, user_id) in (${pairs.map(() => '(?, ?)').join(', ')})`,
    pairs.flat(),
  );
  return rows.map(toPatient);
}

/** A user's records in every clinic it is a patient of, oldest first. */
export async function patientsOfUser(em: EntityManager, userId: string): Promise<PatientRow[]> {
  const rows = await sqlOf(em).rows(
    `select ${PATIENT_COLUMNS}, null as sort_value from clinic_patients where user_id = ? order by created_time, clinic_id`,
    [userId],
  );
  return rows.map(toPatient);
}

/** Writes a new patient record; a record already there breaks the primary key (isUniqueViolation). */
export async function insertPatient(
  tx: EntityManager,
  clinicId: string,
  userId: string,
  record: NewPatientRecord,
  permissions: readonly Permission[],
): Promise<void> {
  const now = new Date();
  await sqlOf(tx).run(
    `insert into clinic_patients (clinic_id, user_id, full_name, birth_date, email, mrn, tags, permissions, reviews, last_reviewed, created_time, updated_time)
     values (?, ?, ?, ?, ?, ?, ?::text[], ?::text[], '[]'::jsonb, null, ?, ?)`,
    [
      clinicId,
      userId,
      record.fullName,
      record.birthDate,
      record.email,
      record.mrn,
      arrayLiteral(record.tags),
      arrayLiteral(permissions),
      now,
      now,
    ],
  );
}

/** The record's fields given (column names of clinic_patients, `tags` as an array literal); the others stay. */
export async function updatePatient(
  tx: EntityManager,
  clinicId: string,
  userId: string,
  changes: Partial<Record<'full_name' | 'birth_date' | 'email' | 'mrn' | 'tags', string | null>>,
): Promise<void> {
  const columns = Object.entries(changes).filter(([, value]) => value !== undefined);
  await sqlOf(tx).run(
    `update clinic_patients set ${columns.map(([column]) => `${column} = ?${column === 'tags' ? '::text[]' : ''}`).join(', ')}${columns.length ? ', ' : ''}updated_time = ?
    where clinic_id = ? and user_id = ?`,
    [...columns.map(([, value]) => value), new Date(), clinicId, userId],
  );
}

export async function setPatientPermissions(
  tx: EntityManager,
  clinicId: string,
  userId: string,
  permissions: readonly Permission[],
): Promise<void> {
  await sqlOf(tx).run(
    'update clinic_patients set permissions = ?::text[], updated_time = ? where clinic_id = ? and user_id = ?',
    [arrayLiteral(permissions), new Date(), clinicId, userId],
  );
}

export async function deletePatient(tx: EntityManager, clinicId: string, userId: string): Promise<void> {
  await sqlOf(tx).run('delete from clinic_patients where clinic_id = ? and user_id = ?', [clinicId, userId]);
}

/** An account is deleted: its records in every clinic go. Answers the clinics it was a patient of. */
export async function deletePatientsOfUser(em: EntityManager, userId: string): Promise<string[]> {
  const rows = await sqlOf(em).rows<{ clinic_id: string }>(
    'delete from clinic_patients where user_id = ? returning clinic_id',
    [userId],
  );
  return rows.map((row) => row.clinic_id);
}

/** The patient's reviews, its row locked until `tx` ends; null when it is no patient of the clinic. */
export async function lockReviews(
  tx: EntityManager,
  clinicId: string,
  userId: string,
): Promise<PatientReview[] | null> {
  const [row] = await sqlOf(tx).rows<{ reviews: PatientReview[] }>(
    'select reviews from clinic_patients where clinic_id = ? and user_id = ? for update',
    [clinicId, userId],
  );
  return row ? row.reviews : null;
}

/** Replaces the reviews (newest first), the last reviewed time with them. */
export async function writeReviews(
  tx: EntityManager,
  clinicId: string,
  userId: string,
  reviews: readonly PatientReview[],
): Promise<void> {
  await sqlOf(tx).run(
    'update clinic_patients set reviews = ?::jsonb, last_reviewed = ?, updated_time = ? where clinic_id = ? and user_id = ?',
    [JSON.stringify(reviews), reviews[0] ? new Date(reviews[0].time) : null, new Date(), clinicId, userId],
  );
}

/** Takes a deleted tag off every patient of the clinic carrying it. */
export async function removeTagFromPatients(tx: EntityManager, clinicId: string, tagId: string): Promise<void> {
  await sqlOf(tx).run(
    `update clinic_patients set tags = array_remove(tags, ?), updated_time = ?
      where clinic_id = ? and tags @> array[?]::text[]`,
    [tagId, new Date(), clinicId, tagId],
  );
}

/**
 * What each patient granted the clinics the caller is a clinician of (those granting anything),
 * ordered by patient and clinic.
 */
export function clinicGrantRows(
  em: EntityManager,
  callerId: string,
  patientIds: readonly string[],
): Promise<{ user_id: string; clinic_id: string; permissions: Permission[] }[]> {
  return sqlOf(em).reusable(
    'clinic_grants_of_patients',
    `select p.user_id, p.clinic_id, p.permissions
       from clinic_patients p
       join clinicians c on c.clinic_id = p.clinic_id and c.user_id = $1
      where p.user_id = any($2::text[]) and cardinality(p.permissions) > 0
      order by p.user_id, p.clinic_id`,
    [callerId, patientIds],
  );
}

/** Which of `clinicIds` have the user as a patient. */
export async function clinicsOfPatient(
  em: EntityManager,
  userId: string,
  clinicIds: readonly string[],
): Promise<string[]> {
  const rows = await sqlOf(em).rows<{ clinic_id: string }>(
    'select clinic_id from clinic_patients where user_id = ? and clinic_id = any(?::text[])',
    [userId, arrayLiteral(clinicIds)],
  );
  return rows.map((row) => row.clinic_id);
}
