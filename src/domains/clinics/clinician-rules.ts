import { conflict, invalid } from '../../kernel/errors';
import { assertEmail, truncate } from '../../kernel/validation';
import { CLINICIAN_ROLES, type ClinicianRole } from './clinician.entity';
import { text } from './clinic-fields';

/** Roles as Tidepool allows them: at least one, each known, none twice. */
export function checkRoles(roles: readonly string[], field = 'roles'): ClinicianRole[] {
  if (roles.length === 0) throw invalid(`${field} must hold at least one role`, field);
  const seen = new Set<string>();
  for (const role of roles) {
    if (!(CLINICIAN_ROLES as readonly string[]).includes(role))
      throw invalid(`${field} must hold only ${CLINICIAN_ROLES.join(', ')}`, field);
    if (seen.has(role)) throw invalid(`${field} contains ${role} more than once`, field);
    seen.add(role);
  }
  return [...seen] as ClinicianRole[];
}

/** A clinician's display name: optional, never blank. */
export function checkName(name: string | null | undefined, field = 'name'): string | null {
  return text(name, field);
}

/** Invitations are addressed, matched and listed by the lower-cased address. */
export function checkInviteEmail(email: string, field = 'email'): string {
  return assertEmail(email, field).toLowerCase();
}

/** A clinician of one clinic as the last-admin rule sees it; roles null once removed. */
export interface RoleChange {
  userId: string;
  roles: readonly ClinicianRole[] | null;
}

/**
 * A clinic always keeps a CLINIC_ADMIN: refuses (409) a change that would demote or remove the
 * last one. `current` is every clinician of the clinic, read under lock.
 */
export function assertKeepsAnAdmin(current: readonly RoleChange[], change: RoleChange): void {
  const target = current.find((clinician) => clinician.userId === change.userId);
  if (!target?.roles?.includes('CLINIC_ADMIN') || change.roles?.includes('CLINIC_ADMIN')) return;
  const otherAdmins = current.filter(
    (clinician) => clinician.userId !== change.userId && clinician.roles?.includes('CLINIC_ADMIN'),
  );
  if (otherAdmins.length === 0) {
    throw conflict(
      `${truncate(change.userId)} is the last CLINIC_ADMIN of the clinic and cannot be ${change.roles ? 'demoted' : 'removed'}: make another clinician CLINIC_ADMIN first`,
    );
  }
}

/**
 * When an account that was a clinic's last admin is deleted: the clinician who joined first
 * among those left becomes CLINIC_ADMIN, so the clinic stays manageable by its own people; none
 * when nobody is left (then only server tokens manage it, until they add a clinician).
 */
export function successorAdmin(
  remaining: readonly (RoleChange & { createdTime: Date })[],
): (RoleChange & { createdTime: Date }) | null {
  if (remaining.length === 0 || remaining.some((clinician) => clinician.roles?.includes('CLINIC_ADMIN'))) return null;
  return [...remaining].sort(
    (a, b) => a.createdTime.getTime() - b.createdTime.getTime() || a.userId.localeCompare(b.userId),
  )[0];
}
