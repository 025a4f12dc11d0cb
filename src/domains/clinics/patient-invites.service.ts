import { conflict, forbidden, notFound, unauthenticated } from '../../kernel/errors';
import { hexId } from '../../kernel/ids';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import { assertUserId } from '../../kernel/validation';
import { assertSelfOrServer } from './clinic-accounts';
import { assertObjectId } from './clinic-ids';
import type { ClinicRecord } from './clinic.entity';
import type { ClinicsService } from './clinics.service';
import { assertClinicAccess, hasClinicAccess } from './membership';
import { assertClinicPermissions, type PatientFields } from './patient-fields';
import { loadPatient } from './patients.loaders';
import {
  deletePatientInvite,
  deletePatientInvitesOf,
  insertPatientInvite,
  patientInviteOfClinic,
  patientInvitesBy,
  type PatientInvite,
} from './patient-invites.repository';
import { isUniqueViolation, type PatientRow } from './patients.repository';
import type { PatientsService } from './patients.service';

/** The most invitations a clinic lists at once: far beyond what a clinic leaves pending. */
export const MAX_LISTED_INVITES = 1000;

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
      await insertPatientInvite(scope.em, invite);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('The user has already invited this clinic');
      throw error;
    }
    return invite;
  }

  /** The clinic's pending invitations, oldest first: MEMBERs, ADMINs and servers. */
  async ofClinic(scope: Scope, clinicId: string): Promise<PatientInvite[]> {
    await assertClinicAccess(scope, clinicId, 'read');
    return patientInvitesBy(scope.em, 'clinic_id', clinicId, MAX_LISTED_INVITES);
  }

  /** The user's pending invitations, oldest first: the user itself and servers. */
  async ofUser(scope: Scope, userId: string): Promise<PatientInvite[]> {
    assertUserId(userId);
    assertSelfOrServer(scope, userId);
    return patientInvitesBy(scope.em, 'user_id', userId, MAX_LISTED_INVITES);
  }

  /** The clinic accepts: the user becomes its patient with the invitation's permissions, and the invitation is gone. */
  async accept(scope: Scope, clinicId: string, inviteId: string, record: Partial<PatientFields>): Promise<PatientRow> {
    await this.clinics.find(scope, clinicId);
    assertObjectId(inviteId, 'inviteId');
    await assertClinicAccess(scope, clinicId, 'read');
    const invite = await this.pending(scope, clinicId, inviteId);
    return this.patients.admit(scope, clinicId, invite.userId, record, invite.permissions, async (tx) => {
      // Taken in the same transaction as the patient row: accepted once, even by two clinicians at once.
      if (!(await deletePatientInvite(tx, invite.id)))
        throw notFound(`Clinic ${clinicId} has no pending invitation ${inviteId}`);
    });
  }

  /** Withdraws a pending invitation: the inviting user, the clinic's MEMBERs and ADMINs (declining), servers. */
  async revoke(scope: Scope, clinicId: string, inviteId: string): Promise<PatientInvite> {
    await this.clinics.find(scope, clinicId);
    assertObjectId(inviteId, 'inviteId');
    const { principal } = scope;
    if (!isAuthenticated(principal)) throw unauthenticated();
    const invite = await this.pendingForCaller(scope, clinicId, inviteId);
    await deletePatientInvite(scope.em, invite.id);
    return invite;
  }

  /** An account is deleted: its invitations go with it. */
  async forgetUser(scope: Scope, userId: string): Promise<void> {
    await deletePatientInvitesOf(scope.em, userId);
  }

  private async pending(scope: Scope, clinicId: string, inviteId: string): Promise<PatientInvite> {
    const invite = await patientInviteOfClinic(scope.em, clinicId, inviteId);
    if (!invite) throw notFound(`Clinic ${clinicId} has no pending invitation ${inviteId}`);
    return invite;
  }

  /** The invitation if the caller may withdraw it; whoever may not learns nothing of it (403). */
  private async pendingForCaller(scope: Scope, clinicId: string, inviteId: string): Promise<PatientInvite> {
    const clinicSide = await hasClinicAccess(scope, clinicId, 'read');
    const invite = await patientInviteOfClinic(scope.em, clinicId, inviteId);
    if (clinicSide || (invite && invite.userId === scope.principal.userId)) {
      if (!invite) throw notFound(`Clinic ${clinicId} has no pending invitation ${inviteId}`);
      return invite;
    }
    throw forbidden();
  }
}
