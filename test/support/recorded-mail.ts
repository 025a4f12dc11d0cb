import type { Mail, MailQueue } from '../../src/infra/mail/mail';
import { MailOutbox, type MailLimits } from '../../src/infra/mail/outbox';

/**
 * The real outbox (its limits counted in the database), recording each mail it accepted, so a
 * domain's unit test reads the mails its service sent without waiting for a sender.
 */
export function recordedOutbox(limits: MailLimits): {
  queue: MailQueue;
  mails: Mail[];
  keysIn(to: string, link: RegExp): string[];
} {
  const outbox = new MailOutbox(limits);
  const mails: Mail[] = [];
  return {
    queue: {
      enqueue: async (em, mail, requester) => {
        await outbox.enqueue(em, mail, requester);
        mails.push(mail);
      },
    },
    mails,
    /** The first group of `link` in each mail's text to `to` (any case), oldest first. */
    keysIn: (to, link) =>
      mails.filter((mail) => mail.to.toLowerCase() === to.toLowerCase()).map((mail) => link.exec(mail.text)![1]!),
  };
}
