import type { Services } from '../service-catalog';
import type { IdentityLinks } from '../auth/brokering/identity-links';
import { AccountLifecycleService } from '../domains/users/account-lifecycle.service';
import type { Foundation } from './foundation';

/** Creating and deleting accounts; a custodian is granted custodianship of the account it creates. */
export function accountLifecycle({ users, access, permissions }: Foundation): AccountLifecycleService {
  return new AccountLifecycleService(users, access, (em, custodianId, accountId) =>
    permissions.grantCustodianship(em, custodianId, accountId),
  );
}

type Holders = Pick<
  Services,
  | 'lifecycle'
  | 'sessions'
  | 'permissions'
  | 'blobs'
  | 'deviceLogs'
  | 'glucose'
  | 'clinicians'
  | 'patients'
  | 'patientInvites'
  | 'confirmations'
  | 'careTeamInvitations'
>;

/**
 * Deleting an account: its sessions end first, then each domain removes what it holds, in the
 * transaction that deletes the account. What was granted through a clinic's access ends when the
 * clinic no longer backs it.
 */
export function wireAccountDeletion(
  {
    lifecycle,
    sessions,
    permissions,
    blobs,
    deviceLogs,
    glucose,
    clinicians,
    patients,
    patientInvites,
    confirmations,
    careTeamInvitations,
  }: Holders,
  links: IdentityLinks,
): void {
  lifecycle.beforeDelete((userId) => sessions.endAllSessionsOf(userId));
  lifecycle.onDelete((scope, userId) => permissions.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId) => links.forgetUser(scope.em, userId));
  lifecycle.onDelete((scope, userId) => blobs.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId) => deviceLogs.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId) => glucose.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId, addresses) => clinicians.forgetUser(scope, userId, addresses));
  lifecycle.onDelete((scope, userId) => patients.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId) => patientInvites.forgetUser(scope, userId));
  lifecycle.onDelete((scope, userId) => confirmations.forgetUser(scope.em, userId));
  clinicians.onBackingEnds((tx, clinicId, userId) =>
    permissions.endClinicGrants(tx, clinicId, { clinicianId: userId }),
  );
  patients.onBackingEnds((tx, clinicId, userId) => permissions.endClinicGrants(tx, clinicId, { patientId: userId }));
  clinicians.onBackingEnds((tx, clinicId, userId) =>
    careTeamInvitations.endClinicInvitations(tx, clinicId, { clinicianId: userId }),
  );
  patients.onBackingEnds((tx, clinicId, userId) =>
    careTeamInvitations.endClinicInvitations(tx, clinicId, { patientId: userId }),
  );
}
