import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../../infra/database/sql-runner';
import { arrayLiteral, rowDate } from '../../kernel/sql';
import type { Permission } from '../permissions/permission.model';

/**
 * Every statement on the invitations users send clinics (`patient_invites`). The service holds
 * the rules; this holds the statements.
 */

/** A user's pending invitation to a clinic. */
export interface PatientInvite {
  id: string;
  clinicId: string;
  userId: string;
  permissions: Permission[];
  createdTime: Date;
  updatedTime: Date;
}

const toInvite = (row: Record<string, unknown>): PatientInvite => ({
  id: row.id as string,
  clinicId: row.clinic_id as string,
  userId: row.user_id as string,
  permissions: row.permissions as Permission[],
  createdTime: rowDate(row.created_time)!,
  updatedTime: rowDate(row.updated_time)!,
});

/** Writes an invitation; a pending one of the same user to the same clinic breaks its unique index (isUniqueViolation). */
export async function insertPatientInvite(em: EntityManager, invite: PatientInvite): Promise<void> {
  await sqlOf(em).run(
    'insert into patient_invites (id, clinic_id, user_id, permissions, created_time, updated_time) values (?, ?, ?, ?::text[], ?, ?)',
    [
      invite.id,
      invite.clinicId,
      invite.userId,
      arrayLiteral(invite.permissions),
      invite.createdTime,
      invite.updatedTime,
    ],
  );
}

/** A clinic's (`clinic_id`) or a user's (`user_id`) pending invitations, oldest first, at most `limit`. */
export async function patientInvitesBy(
  em: EntityManager,
  column: 'clinic_id' | 'user_id',
  id: string,
  limit: number,
): Promise<PatientInvite[]> {
  const rows = await sqlOf(em).rows(
    `select * from patient_invites where ${column} = ? order by created_time, id limit ?`,
    [id, limit],
  );
  return rows.map(toInvite);
}

export async function patientInviteOfClinic(
  em: EntityManager,
  clinicId: string,
  id: string,
): Promise<PatientInvite | null> {
  const [row] = await sqlOf(em).rows('select * from patient_invites where id = ? and clinic_id = ?', [id, clinicId]);
  return row ? toInvite(row) : null;
}

/** Deletes an invitation: false when it was already gone. */
export async function deletePatientInvite(em: EntityManager, id: string): Promise<boolean> {
  return (await sqlOf(em).run('delete from patient_invites where id = ?', [id])) > 0;
}

/** An account is deleted: its invitations go with it. */
export async function deletePatientInvitesOf(em: EntityManager, userId: string): Promise<void> {
  await sqlOf(em).run('delete from patient_invites where user_id = ?', [userId]);
}
