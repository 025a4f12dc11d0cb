import { escapeHtml } from '../../kernel/html';
import type { Mail } from './mail';

/**
 * An absolute link into the service under `baseUrl` (PUBLIC_URL, path prefix kept): `path` is
 * a route the template writes (no user data in it), values go in `query`, where they are encoded.
 */
export function linkTo(baseUrl: string, path: string, query: Record<string, string> = {}): string {
  if (!path.startsWith('/')) throw new Error(`a mail link's path starts with /, got "${path}"`);
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}

/** What a domain's template says; `composeMail` lays it out as plain text and as HTML. */
export interface MailContent {
  to: string;
  kind: string;
  subject: string;
  /** Paragraphs of plain text (never markup: each is escaped into the HTML). */
  paragraphs: readonly string[];
  /** The one thing the mail asks to do: a button in HTML, the bare link on a line of its own in text. */
  action?: { label: string; url: string };
  /** Small print after the action: why the mail came, what to do if it was not expected. */
  footer?: readonly string[];
}

/** A rendered mail from `content`: every value is HTML-escaped, and the action's link must be http(s). */
export function composeMail({ to, kind, subject, paragraphs, action, footer = [] }: MailContent): Mail {
  if (action && !/^https?:\/\//.test(action.url))
    throw new Error(`a mail's action links over http(s), got "${action.url}"`);
  const text = [
    ...paragraphs,
    ...(action ? [`${action.label}:\n${action.url}`] : []),
    ...(footer.length ? [`--\n${footer.join('\n\n')}`] : []),
  ].join('\n\n');
  const paragraph = (value: string) => `<p style="margin:0 0 16px">${escapeHtml(value)}</p>`;
  const button = action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="background:#4f6a92;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(action.label)}</a></p>` +
      `<p style="margin:0 0 16px;font-size:13px;color:#555555">${escapeHtml(action.url)}</p>`
    : '';
  const small = footer.map((line) => `<p style="margin:0 0 8px;font-size:12px;color:#777777">${escapeHtml(line)}</p>`);
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family:Helvetica,Arial,sans-serif;font-size:15px;color:#222222;line-height:1.5;max-width:560px;margin:0 auto;padding:24px">',
    ...paragraphs.map(paragraph),
    button,
    ...(small.length ? ['<hr style="border:none;border-top:1px solid #dddddd;margin:24px 0">', ...small] : []),
    '</body></html>',
  ].join('\n');
  return { to, kind, subject, text, html };
}
