import type { Mail } from '../../infra/mail/mail';
import { composeMail, linkTo } from '../../infra/mail/render';

/** Where the links of account mails lead: the realm's browser pages (src/auth/interactions). */
export interface AccountMailLinks {
  baseUrl: string;
  realm: string;
}

/** The page that confirms a sign-up's address (a button, so a mail scanner opening the link confirms nothing). */
export const VERIFY_EMAIL_PATH = '/login-actions/verify-email';
/** The page that sets a new password. */
export const RESET_PASSWORD_PATH = '/login-actions/reset-password';

const pageLink = ({ baseUrl, realm }: AccountMailLinks, path: string, key: string) =>
  linkTo(baseUrl, `/realms/${encodeURIComponent(realm)}${path}`, { key });

export function signupMail(links: AccountMailLinks, to: string, key: string, lifetimeSeconds: number): Mail {
  return composeMail({
    to,
    kind: 'signup_confirmation',
    subject: 'Confirm your email address',
    paragraphs: [
      'Confirm that this is your email address, so it can be used to recover your account and receive invitations.',
      `The link works once, for ${describeSeconds(lifetimeSeconds)}.`,
    ],
    action: { label: 'Confirm your email address', url: pageLink(links, VERIFY_EMAIL_PATH, key) },
    footer: ['If you did not create an account, ignore this mail: the address stays unconfirmed.'],
  });
}

export function passwordResetMail(links: AccountMailLinks, to: string, key: string, lifetimeSeconds: number): Mail {
  return composeMail({
    to,
    kind: 'password_reset',
    subject: 'Reset your password',
    paragraphs: [
      'Someone (hopefully you) asked to reset the password of the account with this email address.',
      `The link works once, for ${describeSeconds(lifetimeSeconds)}. Setting a new password signs the account out everywhere.`,
    ],
    action: { label: 'Choose a new password', url: pageLink(links, RESET_PASSWORD_PATH, key) },
    footer: ['If you did not ask for this, ignore this mail: your password stays as it is.'],
  });
}

/** "1 hour", "7 days", "90 minutes": the largest whole unit. */
export function describeSeconds(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const [size, name] = units.find(([unit]) => seconds % unit === 0 && seconds >= unit) ?? [1, 'second'];
  const count = seconds / size;
  return `${count} ${name}${count === 1 ? '' : 's'}`;
}
