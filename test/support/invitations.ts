import type { ParsedMail } from 'mailparser';
import { serverToken } from './accounts';
import { startTestApp, type TestApp } from './app';
import { startSmtpServer, type TestSmtpServer } from './smtp';

export interface MailingApp {
  app: TestApp;
  smtp: TestSmtpServer;
  /** A server token. */
  server: string;
  stop(): Promise<void>;
}

/**
 * The service mailing through a real SMTP server in this process. Every request of a test
 * comes from one address, so the per-source mail limit is lifted; the per-address one stays.
 */
export async function startMailingApp(): Promise<MailingApp> {
  const smtp = await startSmtpServer();
  const app = await startTestApp({
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Islet <no-reply@islet.test>',
    MAIL_PER_SOURCE_PER_HOUR: '100000',
  });
  return {
    app,
    smtp,
    server: await serverToken(app),
    stop: async () => {
      await app.stop();
      await smtp.close();
    },
  };
}

/** The next mail to `to` whose subject matches, passing over others (such as a sign-up's). */
export async function nextMailAbout(smtp: TestSmtpServer, to: string, subject: RegExp): Promise<ParsedMail> {
  for (;;) {
    const mail = await smtp.nextMail(to);
    if (subject.test(mail.subject ?? '')) return mail;
  }
}

/** The key an invitation mail carries (its "Invitation key:" line). */
export const invitationKeyIn = (mail: ParsedMail): string =>
  /Invitation key: (\S+?)\.?(\s|$)/.exec(mail.text ?? '')![1]!;
