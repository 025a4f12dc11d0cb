import type { Services } from '../service-catalog';
import type { SessionsService } from '../auth/sessions.service';
import { PasswordResetsService } from '../domains/confirmations/password-resets.service';
import { SignupConfirmationsService } from '../domains/confirmations/signup-confirmations.service';
import {
  CareTeamInvitationsService,
  type InvitationGrants,
} from '../domains/confirmations/careteam-invitations.service';
import { verifiedAddresses, type InviteeAccounts } from '../domains/confirmations/invitee-accounts';
import type { Foundation, ServiceDependencies } from './foundation';

/** Care team invitations: the invitee's account through the users domain, the grant through permissions. */
export function careTeamInvitations(
  { baseUrl }: ServiceDependencies,
  { access, confirmations, users, permissions }: Foundation,
): CareTeamInvitationsService {
  const inviteeAccounts: InviteeAccounts = {
    verifiedAddresses: async (em, userId) => {
      const account = await users.findById(em, userId);
      return account && verifiedAddresses(account);
    },
    holderOf: async (em, email) => (await users.findByEmail(em, email))?.id ?? null,
  };
  const invitationGrants: InvitationGrants = {
    held: (scope, granteeId, sharerId) => access.heldBy(scope, granteeId, sharerId),
    grant: (tx, sharerId, granteeId, offer) =>
      permissions.grantInvited(tx, sharerId, granteeId, offer.permissions, {
        clinicId: offer.clinicId,
        grantedBy: offer.sentBy,
      }),
  };
  return new CareTeamInvitationsService(confirmations, access, invitationGrants, inviteeAccounts, baseUrl);
}

/**
 * The mailed confirmations of an account's own addresses and password. A changed address asks for
 * a new confirmation; a reset password ends every session of the account.
 */
export function accountMail(
  { config, baseUrl }: ServiceDependencies,
  { confirmations, users }: Foundation,
  sessions: SessionsService,
): Pick<Services, 'signupConfirmations' | 'passwordResets'> {
  const accountMailLinks = { baseUrl, realm: config.legacyRealm };
  const signupConfirmations = new SignupConfirmationsService(
    confirmations,
    users,
    accountMailLinks,
    config.confirmationLifetimes,
  );
  users.onAddressesChanged((scope, account) => signupConfirmations.addressesChanged(scope, account));
  const passwordResets = new PasswordResetsService(
    confirmations,
    users,
    accountMailLinks,
    config.confirmationLifetimes,
    (userId) => sessions.endAllSessionsOf(userId),
  );
  return { signupConfirmations, passwordResets };
}
