import type { Mail } from '../../infra/mail/mail';
import { composeMail, linkTo } from '../../infra/mail/render';
import { describeSeconds } from './account-mails';

/**
 * The mail of an invitation: a lead sentence, the link that opens it (under PUBLIC_URL, for the
 * client that answers invitations) and the key itself, which an API client presents as `key`.
 */
export function invitationMail(parts: {
  kind: 'careteam_invitation' | 'clinician_invitation';
  to: string;
  subject: string;
  lead: string;
  link: { baseUrl: string; path: string; query: Record<string, string> };
  key: string;
  lifetimeSeconds?: number;
}): Mail {
  const lasting = parts.lifetimeSeconds ? ` It works once, for ${describeSeconds(parts.lifetimeSeconds)}.` : '';
  return composeMail({
    to: parts.to,
    kind: parts.kind,
    subject: parts.subject,
    paragraphs: [parts.lead, `Invitation key: ${parts.key}${lasting}`],
    action: {
      label: 'Open the invitation',
      url: linkTo(parts.link.baseUrl, parts.link.path, { ...parts.link.query, key: parts.key }),
    },
    footer: ['If you did not expect this invitation, ignore this mail: nothing happens unless it is accepted.'],
  });
}
