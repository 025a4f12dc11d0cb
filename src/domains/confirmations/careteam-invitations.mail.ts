import type { Mail } from '../../infra/mail/mail';
import type { Permission } from '../permissions/permission.model';
import { invitationMail } from './invitation-mail';

const DESCRIBED: Record<Permission, string> = {
  custodian: 'manage the account',
  view: 'see the diabetes data',
  upload: 'upload diabetes data',
  note: 'read and write notes',
};

/**
 * The mail of a care-team invitation: what the invitee would be allowed to do, and the key that
 * accepts it (PUT /confirm/accept/invite/{the invitee's id}/{sharerId} with `{key}`).
 */
export function careTeamInvitationMail(
  publicUrl: string,
  invitation: { key: string; email: string; sharerId: string; permissions: readonly Permission[] },
): Mail {
  const allowed = invitation.permissions.map((name) => DESCRIBED[name]).join(', ');
  return invitationMail({
    kind: 'careteam_invitation',
    to: invitation.email,
    subject: 'You are invited to a care team',
    lead: `Someone invites you to their care team on Islet, to ${allowed}.`,
    link: { baseUrl: publicUrl, path: '/confirm/invite', query: { invitedBy: invitation.sharerId } },
    key: invitation.key,
  });
}
