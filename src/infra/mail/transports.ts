import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from '../logger';

/** A mail as the sender hands it over: the outbox row's id names it in files and logs. */
export interface OutgoingMail {
  id: number;
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Where mail leaves: `send` resolves once the mail is accepted, and rejects to have it tried again. */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * Short SMTP timeouts (nodemailer waits minutes by default): a server that does not answer
 * fails the attempt, which is retried, instead of holding the sender.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** The longest an attempt can take with these timeouts: the lease an attempt holds its mail for. */
export const ATTEMPT_LEASE_SECONDS = 120;

/** Mail through the SMTP server at `url` (smtp:// or smtps://, credentials in the URL). */
export function smtpTransport(url: string, from: string): MailTransport {
  const transporter = nodemailer.createTransport({ url, ...SMTP_TIMEOUTS });
  return {
    send: async ({ to, subject, text, html }) => {
      await transporter.sendMail({ from, to, subject, text, html });
    },
    close: () => transporter.close(),
  };
}

/**
 * Development without SMTP: each mail is written to `folder` as an .eml file (the MIME message
 * SMTP would carry; any mail client opens it), and its links go to the log, so every flow can
 * be completed from the log alone.
 */
export function outboxFolderTransport(folder: string, from: string, logger: Logger): MailTransport {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    send: async ({ id, kind, to, subject, text, html }) => {
      const { message } = await transporter.sendMail({ from, to, subject, text, html });
      await fs.mkdir(folder, { recursive: true });
      const file = path.join(folder, `${new Date().toISOString().replace(/[:.]/g, '-')}-${kind}-${id}.eml`);
      await fs.writeFile(file, message);
      logger.info({ kind, to, subject, file, links: linksIn(text) }, 'mail written to the outbox folder (no SMTP_URL)');
    },
    close: () => transporter.close(),
  };
}

/** The http(s) links of a plain-text body. */
export function linksIn(text: string): string[] {
  return text.match(/https?:\/\/[^\s<>"]+/g) ?? [];
}
