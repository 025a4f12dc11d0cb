import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config';
import type { DatabaseEvents } from '../database/events';
import type { Logger } from '../logger';
import { meterMailQueue } from '../metrics';
import type { MailQueue } from './mail';
import { MAIL_CHANNEL, MailOutbox } from './outbox';
import { MailSender } from './sender';
import { outboxFolderTransport, smtpTransport } from './transports';

/** The outbox domains enqueue into, and the sender that empties it. */
export interface Mailer {
  queue: MailQueue;
  sender: MailSender;
  /** Starts sending, woken by commits that enqueue; call before `events` starts (it LISTENs then). */
  start(events: DatabaseEvents): void;
  close(): Promise<void>;
}

/** Where mail leaves without SMTP_URL (never in production: config refuses that). */
export const outboxFolder = (dataDir: string) => path.join(dataDir, 'outbox');

/** The mail component as configured: SMTP with SMTP_URL, else the outbox folder under DATA_DIR. */
export function createMailer(config: Config, em: () => EntityManager, logger: Logger): Mailer {
  const transport = config.smtpUrl
    ? smtpTransport(config.smtpUrl, config.mailFrom)
    : outboxFolderTransport(outboxFolder(config.dataDir), config.mailFrom, logger);
  const sender = new MailSender(em, transport, logger, { firstMs: config.mailRetryMs, maxMs: config.mailRetryMaxMs });
  let unmeter: () => void = () => undefined;
  return {
    queue: new MailOutbox({ perAddress: config.mailPerAddressPerHour, perSource: config.mailPerSourcePerHour }),
    sender,
    start: (events) => {
      events.on(MAIL_CHANNEL, () => sender.nudge());
      // After a lost listener connection, notifications may have been missed.
      events.onConnect(async () => sender.nudge());
      unmeter = meterMailQueue(() => sender.queueState());
      sender.start();
    },
    close: async () => {
      unmeter();
      await sender.close();
    },
  };
}
