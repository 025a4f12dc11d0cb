import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccessOutcome } from '../../kernel/access-trail';
import { AppError, forbidden, unauthenticated } from '../../kernel/errors';
import { Loader } from '../../kernel/loader';
import { isAuthenticated } from '../../kernel/principal';
import type { Scope } from '../../kernel/scope';
import type { Grant } from '../permissions/access-policy';
import type { ClinicianRole } from './clinician.entity';
import { rolesInClinics } from './clinicians.repository';
import type { ClinicMemberships } from './clinician-memberships';
import { clinicGrantRows } from './patients.repository';

/**
 * What a clinic operation needs: `read` is CLINIC_MEMBER or CLINIC_ADMIN (list clinicians and
 * patients, manage patients, tags and reviews), `admin` is CLINIC_ADMIN (change the clinic and
 * its clinicians). PRESCRIBER alone grants neither, as in Tidepool's clinic policy.
 */
export type ClinicAccess = 'read' | 'admin';

const ROLES_FOR: Record<ClinicAccess, readonly ClinicianRole[]> = {
  read: ['CLINIC_MEMBER', 'CLINIC_ADMIN'],
  admin: ['CLINIC_ADMIN'],
};

export function rolesAllow(roles: readonly ClinicianRole[] | null, access: ClinicAccess): boolean {
  return !!roles && roles.some((role) => ROLES_FOR[access].includes(role));
}

/** The caller's roles in each clinic asked in the request (null: not a member), in one query. */
export function callerRoles(scope: Scope, callerId: string): Loader<string, ClinicianRole[] | null> {
  return scope.loaders.get(
    `clinics.roles:${callerId}`,
    () =>
      new Loader(async (clinicIds) => {
        const rows = await rolesInClinics(scope.em, callerId, clinicIds);
        const byClinic = new Map(rows.map((row) => [row.clinic_id, row.roles]));
        return clinicIds.map((id) => byClinic.get(id) ?? null);
      }),
  );
}

/**
 * Told inside the transaction that ends what the clinic backed for an account: a clinician
 * removed or leaving, a patient removed or taking back the clinic's custodian. What was made
 * through the clinic's access for it (grants) ends too.
 */
export type BackingEndsHook = (tx: EntityManager, clinicId: string, userId: string) => Promise<void>;

/** Whether the caller may act on the clinic at that level: server tokens always may. */
export async function hasClinicAccess(scope: Scope, clinicId: string, access: ClinicAccess): Promise<boolean> {
  const { principal } = scope;
  if (principal.isServer) return true;
  if (principal.userId === null) return false;
  return rolesAllow(await callerRoles(scope, principal.userId).load(clinicId), access);
}

/** Throws UNAUTHENTICATED for anonymous callers and `denial` (default FORBIDDEN) otherwise. */
export async function assertClinicAccess(
  scope: Scope,
  clinicId: string,
  access: ClinicAccess,
  denial: () => AppError = forbidden,
): Promise<void> {
  if (!isAuthenticated(scope.principal)) throw unauthenticated();
  if (!(await hasClinicAccess(scope, clinicId, access))) throw denial();
}

/**
 * Puts on the access log that the caller read (or was refused) the clinic's records of these
 * patients (a patient record, a list page, the TIDE report), through the clinic. A patient
 * reading its own record is not logged.
 */
export function recordPatientAccess(
  scope: Scope,
  clinicId: string,
  patientIds: readonly string[],
  outcome: AccessOutcome = 'ALLOWED',
): void {
  if (!isAuthenticated(scope.principal)) return;
  for (const subjectId of patientIds) {
    if (subjectId !== scope.principal.userId) scope.accessTrail.record({ subjectId, outcome, objectIds: [], clinicId });
  }
}

/** assertClinicAccess for reading a patient's record: a refusal is logged on the patient's trail. */
export async function assertPatientAccess(
  scope: Scope,
  clinicId: string,
  patientId: string,
  access: ClinicAccess,
): Promise<void> {
  try {
    await assertClinicAccess(scope, clinicId, access);
  } catch (error) {
    recordPatientAccess(scope, clinicId, [patientId], 'REFUSED');
    throw error;
  }
  recordPatientAccess(scope, clinicId, [patientId]);
}

/**
 * Permissions reaching a clinician through its clinics: every clinician of a clinic, whatever
 * its role, holds exactly what each patient granted that clinic, one grant per clinic (so the
 * access log can name the clinic). A grant source of the access policy, so every domain sees
 * clinic access the way it sees a direct grant. Acts on the patient's account itself (its
 * permissions, credentials, deletion) the clinic's rules keep to its admins (clinicControl).
 */
export function clinicGrants(memberships: ClinicMemberships) {
  return (scope: Scope, callerId: string, targets: readonly string[]): Promise<Grant[][]> =>
    clinicGrantsLoader(scope, memberships, callerId).loadMany(targets);
}

function clinicGrantsLoader(scope: Scope, memberships: ClinicMemberships, callerId: string): Loader<string, Grant[]> {
  return scope.loaders.get(
    `clinics.grants:${callerId}`,
    () =>
      new Loader(async (patientIds) => {
        // A caller who is a clinician of no clinic (most callers) holds nothing through one.
        if (!(await memberships.mayBeClinician(scope, callerId))) return patientIds.map(() => []);
        const rows = await clinicGrantRows(scope.em, callerId, patientIds);
        const byPatient = new Map(patientIds.map((id) => [id, [] as Grant[]]));
        for (const row of rows)
          byPatient.get(row.user_id)?.push({ permissions: row.permissions, clinicId: row.clinic_id });
        return patientIds.map((id) => byPatient.get(id)!);
      }),
  );
}

/**
 * The access policy's ClinicControl: what reaches a clinician through a clinic serves acts on a
 * patient's account itself (granting, its credentials, deleting it) only for the clinic's
 * admins, as the clinic's own rules keep changing the clinic to them. A departure from Tidepool,
 * which lets every clinician use a clinic's custodian fully.
 */
export const clinicControl = (scope: Scope, clinicId: string): Promise<boolean> =>
  hasClinicAccess(scope, clinicId, 'admin');
