import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlOf } from '../database/sql-runner';
import { invalid, rateLimited } from '../../kernel/errors';
import type { Mail, MailQueue, MailRequester } from './mail';

/** Notified (on commit) when a mail joins the outbox, so the sender wakes at once. */
export const MAIL_CHANNEL = 'mail_outbox';

/** The limits' window: mails are counted over the last hour. */
export const MAIL_LIMIT_WINDOW_SECONDS = 3600;

export interface MailLimits {
  /** Mails one recipient address may be sent per hour (MAIL_PER_ADDRESS_PER_HOUR). */
  perAddress: number;
  /** Mails one source address may cause per hour (MAIL_PER_SOURCE_PER_HOUR). */
  perSource: number;
}

/** One plain mail address: no display name, list or whitespace that would send the mail elsewhere too. */
const SINGLE_ADDRESS = /^[^\s@,;:<>()[\]"\\]+@[^\s@,;:<>()[\]"\\]+$/;

/** The form limits count an address in: `Alice@Example.org` and `alice@example.org ` are one mailbox here. */
export const recipientKey = (address: string) => address.trim().toLowerCase();

/**
 * The transactional outbox: each mail is a row written in the caller's transaction (see
 * MailQueue). Limits are counted in PostgreSQL over the rows of the last hour, sent or not, so
 * they hold across instances; an advisory lock per recipient and per source, held until the
 * caller's transaction ends, keeps two enqueues at once from both passing the count.
 */
export class MailOutbox implements MailQueue {
  constructor(private readonly limits: MailLimits) {}

  async enqueue(em: EntityManager, mail: Mail, requester: MailRequester): Promise<void> {
    if (!em.isInTransaction())
      throw new Error('MailQueue.enqueue needs the transaction of the action that sends the mail');
    if (!SINGLE_ADDRESS.test(mail.to.trim())) throw invalid(`"${mail.to}" is not one mail address`, 'email');
    const recipient = recipientKey(mail.to);
    const source = requester.source ?? null;
    const keys = [`mail:to:${recipient}`, ...(source === null ? [] : [`mail:source:${source}`])].sort();
    // In one order everywhere, so two transactions never wait for each other's second key.
    for (const key of keys) await sqlOf(em).rows('select pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
    await this.refuseOverLimit(em, 'recipient', recipient, this.limits.perAddress, 'this address');
    if (source !== null) await this.refuseOverLimit(em, 'source', source, this.limits.perSource, 'your address');
    await sqlOf(em).run(
      `insert into outbound_mails (kind, recipient, source, subject, text_body, html_body) values (?, ?, ?, ?, ?, ?)`,
      [mail.kind, mail.to.trim(), source, mail.subject, mail.text, mail.html],
    );
    await sqlOf(em).rows(`select pg_notify('${MAIL_CHANNEL}', '')`);
  }

  /**
   * Refuses when `limit` mails of the window already went to (or came from) `value`; the wait
   * asked for is until the oldest of those that must leave the window has left it.
   */
  private async refuseOverLimit(
    em: EntityManager,
    column: 'recipient' | 'source',
    value: string,
    limit: number,
    whom: string,
  ): Promise<void> {
    const [full] = await sqlOf(em).rows<{ wait: string }>(
      `select extract(epoch from created_at + make_interval(secs => ?) - now()) as wait from outbound_mails
        where ${column === 'recipient' ? 'lower(recipient)' : 'source'} = ? and created_at > now() - make_interval(secs => ?)
        order by created_at desc offset ? limit 1`,
      [MAIL_LIMIT_WINDOW_SECONDS, value, MAIL_LIMIT_WINDOW_SECONDS, limit - 1],
    );
    if (!full) return;
    throw rateLimited(
      `Too many mails for ${whom}: at most ${limit} an hour; try again later`,
      Math.max(1, Math.ceil(Number(full.wait))),
    );
  }
}
