import { conflict, forbidden, notFound, unauthenticated } from '../../kernel/errors';
import { hexId } from '../../kernel/ids';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import { arrayLiteral, rowDate } from '../../kernel/sql';
import { assertUserId } from '../../kernel/validation';
import type { Permission } from '../permissions/permission.model';
import { assertSelfOrServer } from './clinic-accounts';
import { assertObjectId } from './clinic-ids';
import type { ClinicRecord } from './clinic.entity';
import type { ClinicsService } from './clinics.service';
import { assertClinicAccess, hasClinicAccess } from './membership';
import { assertClinicPermissions, type PatientFields } from './patient-fields';
import type { PatientRow } from './patient-list';
import { loadPatient } from './patients.loaders';
import { execute, isUniqueViolation } from './patient-sql';
import type { PatientsService } from './patients.service';

/** A user's pending invitation to a clinic. */
export interface PatientInvite {
  id: string;
  clinicId: string;
  userId: string;
  permissions: Permission[];
  createdTime: Date;
  updatedTime: Date;
}

/** The most invitations a clinic lists at once: far beyond what a clinic leaves pending. */
export const MAX_LISTED_INVITES = 1000;

const toInvite = (row: Record<string, unknown>): PatientInvite => ({
  id: row.id as string,
  clinicId: row.clinic_id as string,
  userId: row.user_id as string,
  permissions: row.permissions as Permission[],
  createdTime: rowDate(row.created_time)!,
  updatedTime: rowDate(row.updated_time)!,
});

/**
 * How an existing user becomes a clinic's patient, as Tidepool's confirmation service does it:
 * the user invites the clinic through its share code with the permissions it chooses; the
 * clinic's MEMBERs or ADMINs accept (the user becomes a patient with those permissions) or
 * decline; the user may revoke it while pending.
 */
export class PatientInvitesService {
  constructor(
    private readonly clinics: ClinicsService,
    private readonly patients: PatientsService,
  ) {}

  /** The user (or a server for it) invites the clinic with `shareCode`: 409 when pending or already a patient. */
  async invite(
    scope: Scope,
    userId: string,
    shareCode: string,
    permissions: readonly string[],
  ): Promise<PatientInvite> {
    assertUserId(userId);
    assertSelfOrServer(scope, userId);
    const checked = assertClinicPermissions(permissions);
    // A server may invite for any id: one that is no account would become a patient without one.
    await this.patients.assertAccount(scope, userId);
    const clinic: ClinicRecord = await this.clinics.byShareCode(scope, shareCode);
    if (await loadPatient(scope, clinic.id, userId)) throw conflict('The user is already a patient of this clinic');
    const now = new Date();
    const invite: PatientInvite = {
      id: hexId(24),
      clinicId: clinic.id,
      userId,
      permissions: checked,
      createdTime: now,
      updatedTime: now,
    };
    try {
      await execute(
        scope.em,
        'insert into patient_invites (id, clinic_id, user_id, permissions, created_time, updated_time) values (?, ?, ?, ?::text[], ?, ?)',
        [invite.id, invite.clinicId, userId, arrayLiteral(checked), now, now],
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('The user has already invited this clinic');
      throw error;
    }
    return invite;
  }

  /** The clinic's pending invitations, oldest first: MEMBERs, ADMINs and servers. */
  async ofClinic(scope: Scope, clinicId: string): Promise<PatientInvite[]> {
    await assertClinicAccess(scope, clinicId, 'read');
    const rows = await execute<Record<string, unknown>[]>(
      scope.em,
      'select * from patient_invites where clinic_id = ? order by created_time, id limit ?',
      [clinicId, MAX_LISTED_INVITES],
    );
    return rows.map(toInvite);
  }

  /** The user's pending invitations, oldest first: the user itself and servers. */
  async ofUser(scope: Scope, userId: string): Promise<PatientInvite[]> {
    assertUserId(userId);
    assertSelfOrServer(scope, userId);
    const rows = await execute<Record<string, unknown>[]>(
      scope.em,
      'select * from patient_invites where user_id = ? order by created_time, id limit ?',
      [userId, MAX_LISTED_INVITES],
    );
    return rows.map(toInvite);
  }

  /** The clinic accepts: the user becomes its patient with the invitation's permissions, and the invitation is gone. */
  async accept(scope: Scope, clinicId: string, inviteId: string, record: Partial<PatientFields>): Promise<PatientRow> {
    await this.clinics.find(scope, clinicId);
    assertObjectId(inviteId, 'inviteId');
    await assertClinicAccess(scope, clinicId, 'read');
    const invite = await this.pending(scope, clinicId, inviteId);
    return this.patients.admit(scope, clinicId, invite.userId, record, invite.permissions, async (tx) => {
      // Taken in the same transaction as the patient row: accepted once, even by two clinicians at once.
      const [gone] = await execute<unknown[]>(tx, 'delete from patient_invites where id = ? returning id', [invite.id]);
      if (!gone) throw notFound(`Clinic ${clinicId} has no pending invitation ${inviteId}`);
    });
  }

  /** Withdraws a pending invitation: the inviting user, the clinic's MEMBERs and ADMINs (declining), servers. */
  async revoke(scope: Scope, clinicId: string, inviteId: string): Promise<PatientInvite> {
    await this.clinics.find(scope, clinicId);
    assertObjectId(inviteId, 'inviteId');
    const { principal } = scope;
    if (!isAuthenticated(principal)) throw unauthenticated();
    const invite = await this.pendingForCaller(scope, clinicId, inviteId);
    await execute(scope.em, 'delete from patient_invites where id = ?', [invite.id]);
    return invite;
  }

  /** An account is deleted: its invitations go with it. */
  async forgetUser(scope: Scope, userId: string): Promise<void> {
    await execute(scope.em, 'delete from patient_invites where user_id = ?', [userId]);
  }

  private async pending(scope: Scope, clinicId: string, inviteId: string): Promise<PatientInvite> {
    const [row] = await execute<Record<string, unknown>[]>(
      scope.em,
      'select * from patient_invites where id = ? and clinic_id = ?',
      [inviteId, clinicId],
    );
    if (!row) throw notFound(`Clinic ${clinicId} has no pending invitation ${inviteId}`);
    return toInvite(row);
  }

  /** The invitation if the caller may withdraw it; whoever may not learns nothing of it (403). */
  private async pendingForCaller(scope: Scope, clinicId: string, inviteId: string): Promise<PatientInvite> {
    const clinicSide = await hasClinicAccess(scope, clinicId, 'read');
    const [row] = await execute<Record<string, unknown>[]>(
      scope.em,
      'select * from patient_invites where id = ? and clinic_id = ?',
      [inviteId, clinicId],
    );
    const invite = row ? toInvite(row) : null;
    if (clinicSide || (invite && invite.userId === scope.principal.userId)) {
      if (!invite) throw notFound(`Clinic ${clinicId} has no pending invitation ${inviteId}`);
      return invite;
    }
    throw forbidden();
  }
}
