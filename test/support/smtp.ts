import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface TestSmtpServer {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Every mail received, in the order it arrived. */
  mails: ParsedMail[];
  /**
   * The next mail to `to` (the envelope's recipient, any case) that no earlier call returned,
   * waiting for it up to `timeoutMs`.
   */
  nextMail(to: string, timeoutMs?: number): Promise<ParsedMail>;
  /** While on, every connection is greeted with 421 (service not available, try later). */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

interface Arrival {
  recipients: string[];
  mail: ParsedMail;
  taken: boolean;
}

/** A real SMTP server in this process on loopback (no TLS, no authentication), keeping what it receives. */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const arrivals: Arrival[] = [];
  const mails: ParsedMail[] = [];
  const waiters = new Set<() => void>();
  let refusing = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      if (!refusing) return callback();
      callback(Object.assign(new Error('Service not available, try later'), { responseCode: 421 }));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const recipients = session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase());
          arrivals.push({ recipients, mail, taken: false });
          mails.push(mail);
          for (const wake of waiters) wake();
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;

  const take = (to: string): ParsedMail | undefined => {
    const arrival = arrivals.find((each) => !each.taken && each.recipients.includes(to.toLowerCase()));
    if (!arrival) return undefined;
    arrival.taken = true;
    return arrival.mail;
  };

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    nextMail: (to, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const wake = () => {
          const mail = take(to);
          if (!mail) return;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve(mail);
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`no mail to ${to} arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(wake);
        wake();
      }),
    refuse: (on) => {
      refusing = on;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
