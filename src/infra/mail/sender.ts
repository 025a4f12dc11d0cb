import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../logger';
import { CoalescingRun } from '../../kernel/coalescing-run';
import { sqlOf } from '../database/sql-runner';
import { boundedLabel, mailsAbandoned, mailSendFailures, mailsSent } from '../metrics';
import { MAIL_LIMIT_WINDOW_SECONDS } from './outbox';
import { ATTEMPT_LEASE_SECONDS, type MailTransport, type OutgoingMail } from './transports';

/** The longest the sender sleeps without looking at the outbox (mails other instances' attempts left due). */
const SWEEP_MS = 5_000;

/** How often sent mails that left the limits' window, and mails given up on, are removed. */
const CLEAN_UP_MS = 60_000;

/** A mail still unsent after this long is given up on: every key it carries has expired by then. */
const GIVE_UP_SECONDS = 3 * 24 * 3600;

export interface MailRetries {
  /** The wait after a first failed attempt (MAIL_RETRY_MS); it doubles with each further failure. */
  firstMs: number;
  /** The longest wait between attempts (MAIL_RETRY_MAX_MS). */
  maxMs: number;
}

/** The wait after the `attempts`-th failed attempt: exponential, capped. */
export function retryDelayMs(attempts: number, retries: MailRetries): number {
  return Math.min(retries.maxMs, retries.firstMs * 2 ** Math.min(Math.max(attempts - 1, 0), 30));
}

interface ClaimedMail {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  attempts: number;
}

const kindLabel = boundedLabel(50);

/**
 * Sends the outbox's mails. A commit that enqueued mail nudges it (LISTEN/NOTIFY, so the
 * instance that is free sends), and it looks again at least every few seconds and when the
 * next retry is due. Each attempt claims one due mail in a statement of its own with SKIP
 * LOCKED, pushing it a lease ahead, so instances share the work and no transaction stays open
 * while SMTP talks; an instance that dies mid-attempt leaves the mail to be tried again when
 * the lease ends. A failed attempt waits an exponential backoff; a sent mail keeps no body.
 * Delivery is at least once: a crash between the server's acceptance and the row's update
 * sends that mail again.
 */
export class MailSender {
  private timer: NodeJS.Timeout | undefined;
  /** When the pass that ended last asks to look again, in ms. */
  private nextLookMs = SWEEP_MS;
  private lastCleanUp = 0;
  private readonly run: CoalescingRun;

  constructor(
    private readonly em: () => EntityManager,
    private readonly transport: MailTransport,
    private readonly logger: Logger,
    private readonly retries: MailRetries,
  ) {
    this.run = new CoalescingRun(
      async () => {
        this.nextLookMs = SWEEP_MS;
        this.nextLookMs = Math.min(SWEEP_MS, await this.drain());
      },
      (error) => this.logger.warn({ err: error }, 'sending mail failed; tried again shortly'),
      () => (this.timer = setTimeout(() => this.nudge(), Math.max(0, this.nextLookMs)).unref()),
    );
  }

  start(): void {
    this.nudge();
  }

  /** Sends every due mail soon; a nudge during a run makes the run go round once more. */
  nudge(): void {
    clearTimeout(this.timer);
    this.run.nudge();
  }

  /** Resolves when no attempt runs (tests and shutdown wait for this). */
  idle(): Promise<void> {
    return this.run.idle();
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.run.close();
    this.transport.close();
  }

  /** The unsent mails and the age of the oldest, for the queue gauges. */
  async queueState(): Promise<{ queued: number; oldestSeconds: number }> {
    const [row] = await sqlOf(this.em()).rows<{ queued: string; oldest: string | null }>(
      `select count(*) as queued, extract(epoch from now() - min(created_at)) as oldest
         from outbound_mails where sent_at is null`,
    );
    return { queued: Number(row?.queued ?? 0), oldestSeconds: Math.max(0, Number(row?.oldest ?? 0)) };
  }

  /** Sends what is due; answers in how many ms the next unsent mail is due. */
  private async drain(): Promise<number> {
    while (!this.run.isClosed && (await this.attempt())) {
      // One mail per claim: a slow server holds up nothing but the mail it is sent.
    }
    if (Date.now() - this.lastCleanUp >= CLEAN_UP_MS) await this.cleanUp();
    const [next] = await sqlOf(this.em()).rows<{ ms: string | null }>(
      `select extract(epoch from min(due_at) - now()) * 1000 as ms from outbound_mails where sent_at is null`,
    );
    return next?.ms === null || next?.ms === undefined ? SWEEP_MS : Number(next.ms);
  }

  /** Answers whether there was a due mail to try. */
  private async attempt(): Promise<boolean> {
    const sql = sqlOf(this.em());
    const [claimed] = await sql.rows<ClaimedMail>(
      `update outbound_mails set due_at = now() + make_interval(secs => ?), attempts = attempts + 1
        where id = (select id from outbound_mails where sent_at is null and due_at <= now()
                     order by due_at limit 1 for update skip locked)
        returning id, kind, recipient, subject, text_body, html_body, attempts`,
      [ATTEMPT_LEASE_SECONDS],
    );
    if (!claimed) return false;
    const mail: OutgoingMail = {
      id: Number(claimed.id),
      kind: claimed.kind,
      to: claimed.recipient,
      subject: claimed.subject,
      text: claimed.text_body,
      html: claimed.html_body,
    };
    try {
      await this.transport.send(mail);
    } catch (error) {
      const delayMs = retryDelayMs(claimed.attempts, this.retries);
      mailSendFailures.inc({ kind: kindLabel(mail.kind) });
      this.logger.warn(
        { err: error, mailId: mail.id, kind: mail.kind, attempts: claimed.attempts, retryInMs: delayMs },
        'a mail could not be sent; it is tried again after a backoff',
      );
      await sql.run(
        `update outbound_mails set due_at = now() + make_interval(secs => ?), last_error = ? where id = ?`,
        [delayMs / 1000, String(error instanceof Error ? error.message : error).slice(0, 1000), claimed.id],
      );
      return true;
    }
    mailsSent.inc({ kind: kindLabel(mail.kind) });
    await sql.run(
      `update outbound_mails set sent_at = now(), text_body = null, html_body = null, last_error = null where id = ?`,
      [claimed.id],
    );
    return true;
  }

  /** Removes sent mails the limits no longer count, and gives up on mails unsent for days. */
  private async cleanUp(): Promise<void> {
    this.lastCleanUp = Date.now();
    const sql = sqlOf(this.em());
    await sql.run(
      `delete from outbound_mails where sent_at is not null and created_at < now() - make_interval(secs => ?)`,
      [MAIL_LIMIT_WINDOW_SECONDS],
    );
    const abandoned = await sql.rows<{ id: string; kind: string; last_error: string | null }>(
      `delete from outbound_mails where sent_at is null and created_at < now() - make_interval(secs => ?)
        returning id, kind, last_error`,
      [GIVE_UP_SECONDS],
    );
    for (const mail of abandoned) {
      mailsAbandoned.inc();
      this.logger.error(
        { mailId: Number(mail.id), kind: mail.kind, lastError: mail.last_error },
        'a mail was given up on after days of failed attempts',
      );
    }
  }
}
