import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isAppError, retryAfterOf } from '../../src/kernel/errors';
import type { Mail } from '../../src/infra/mail/mail';
import { outboxFolder } from '../../src/infra/mail/mailer';
import { startupBanner } from '../../src/main';
import { MailOutbox } from '../../src/infra/mail/outbox';
import { composeMail, linkTo } from '../../src/infra/mail/render';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';

/**
 * The mail component inside the running service: mails enqueued as a domain does (in a
 * transaction of the service's database) leave through a real SMTP server in this process,
 * woken by the commit, and are read back as a mail client would.
 */
const MAIL_FROM = 'Islet <no-reply@islet.test>';
let smtp: TestSmtpServer;
let app: TestApp;
let outbox: MailOutbox;
let mailNumber = 0;

beforeAll(async () => {
  smtp = await startSmtpServer();
  app = await startTestApp({
    SMTP_URL: smtp.url,
    MAIL_FROM,
    // Fast retries, so a refusing server is tried again within the test.
    MAIL_RETRY_MS: '50',
    MAIL_RETRY_MAX_MS: '200',
    MAIL_PER_ADDRESS_PER_HOUR: '2',
    MAIL_PER_SOURCE_PER_HOUR: '3',
  });
  outbox = new MailOutbox({
    perAddress: app.config.mailPerAddressPerHour,
    perSource: app.config.mailPerSourcePerHour,
  });
});
afterAll(async () => {
  await app?.stop();
  await smtp?.close();
});

/** A mail to a fresh address (so each test has its own share of the limits). */
function notice(to = `person-${(mailNumber += 1)}@example.org`): Mail {
  return composeMail({
    to,
    kind: 'test_notice',
    subject: 'Please confirm <now>',
    paragraphs: ['Someone asked for this & that.'],
    action: { label: 'Confirm', url: linkTo(app.url, '/confirm', { key: `k${mailNumber}` }) },
  });
}

/** Enqueues in a transaction that commits. */
const send = (mail: Mail, source = `198.51.100.${mailNumber}`) =>
  app.service.orm.em.fork().transactional((em) => outbox.enqueue(em, mail, { source }));

const rowsTo = (to: string) =>
  app.database.query(`select attempts, sent_at, text_body, last_error from outbound_mails where recipient = $1`, [to]);

const arrivedTo = (to: string) =>
  smtp.mails.filter((mail) => mail.to && !Array.isArray(mail.to) && mail.to.text === to);

async function scrapeMetrics(): Promise<string> {
  return (await fetch(`${app.url}/metrics`)).text();
}

const metricValue = (metrics: string, sample: string) =>
  Number(new RegExp(`^${sample.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);

describe('a mail enqueued in a committed transaction', () => {
  it('arrives once, with its From, To, Subject and both parts, and keeps no body once sent', async () => {
    const mail = notice();
    await send(mail);
    const arrived = await smtp.nextMail(mail.to);
    expect(arrived.from?.value).toEqual([{ name: 'Islet', address: 'no-reply@islet.test' }]);
    expect(arrived.to && !Array.isArray(arrived.to) && arrived.to.text).toBe(mail.to);
    expect(arrived.subject).toBe('Please confirm <now>');
    expect(arrived.text?.trim()).toBe(mail.text);
    expect(arrived.text).toContain(`${app.url}/confirm?key=k${mailNumber}`);
    expect(arrived.html).toContain('Please confirm &#60;now&#62;');
    expect(arrived.html).toContain('Someone asked for this &#38; that.');
    await eventually(async () => (await rowsTo(mail.to))[0]?.sent_at !== null, 'the mail is marked sent');
    expect(await rowsTo(mail.to)).toEqual([expect.objectContaining({ attempts: 1, text_body: null })]);
    expect(arrivedTo(mail.to)).toHaveLength(1);
  });
});

describe('a mail enqueued in a transaction rolled back', () => {
  it('is never sent: a mail enqueued after it arrives, and it neither arrives nor stays', async () => {
    const dropped = notice();
    await expect(
      app.service.orm.em.fork().transactional(async (em) => {
        await outbox.enqueue(em, dropped, { source: '198.51.100.200' });
        throw new Error('the action failed');
      }),
    ).rejects.toThrow('the action failed');
    const later = notice();
    await send(later);
    await smtp.nextMail(later.to);
    expect(arrivedTo(dropped.to)).toEqual([]);
    expect(await rowsTo(dropped.to)).toEqual([]);
  });
});

describe('an SMTP server refusing for a while', () => {
  it('gets the mail once after it comes back; each refused attempt is counted', async () => {
    const failures = async () =>
      metricValue(await scrapeMetrics(), 'islet_mail_send_failures_total{kind="test_notice"}');
    const failuresBefore = await failures();
    smtp.refuse(true);
    const mail = notice();
    try {
      await send(mail);
      await eventually(async () => (await failures()) - failuresBefore >= 3, 'three attempts failed');
      const [refused] = await rowsTo(mail.to);
      expect(refused).toMatchObject({ sent_at: null, last_error: expect.stringMatching(/421/) });
      expect(refused!.attempts).toBeGreaterThanOrEqual(3);
      const metrics = await scrapeMetrics();
      expect(metricValue(metrics, 'islet_mails_queued')).toBe(1);
      expect(metricValue(metrics, 'islet_mail_oldest_queued_seconds')).toBeGreaterThan(0);
    } finally {
      smtp.refuse(false);
    }
    const arrived = await smtp.nextMail(mail.to);
    expect(arrived.subject).toBe(mail.subject);
    await eventually(async () => (await rowsTo(mail.to))[0]?.sent_at !== null, 'the mail is marked sent');
    expect(arrivedTo(mail.to)).toHaveLength(1);
    expect(metricValue(await scrapeMetrics(), 'islet_mails_queued')).toBe(0);
  });
});

describe('limits', () => {
  /** Settles to the refusal's code and wait, or 'ok'. */
  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: unknown) => (isAppError(error) ? `${error.code} ${retryAfterOf(error)! > 0}` : String(error)),
    );

  it('refuses a third mail to one address within the hour (in any case), writing nothing', async () => {
    const mail = notice();
    await send(mail, '198.51.100.101');
    await send(mail, '198.51.100.102');
    const shouted = { ...mail, to: mail.to.toUpperCase() };
    expect(await outcome(send(shouted, '198.51.100.103'))).toBe('RATE_LIMITED true');
    const refusal = await send(mail, '198.51.100.104').catch((error: unknown) => error);
    expect(retryAfterOf(refusal)).toBeLessThanOrEqual(3600);
    expect(String(refusal)).toMatch(/at most 2 an hour/);
    expect(await rowsTo(mail.to)).toHaveLength(2);
  });

  it('refuses a fourth mail caused from one source within the hour, whoever it goes to', async () => {
    const source = '203.0.113.77';
    for (let i = 0; i < 3; i += 1) expect(await outcome(send(notice(), source))).toBe('ok');
    const fourth = notice();
    expect(await outcome(send(fourth, source))).toBe('RATE_LIMITED true');
    expect(await rowsTo(fourth.to)).toEqual([]);
    expect(await outcome(send(fourth, '203.0.113.78'))).toBe('ok');
  });
});

describe('without SMTP_URL outside production', () => {
  it('writes each mail to DATA_DIR/outbox as a message file and logs its links', async () => {
    const lines: string[] = [];
    const dev = await startTestApp({ LOG_LEVEL: 'info' }, { logTo: (line) => lines.push(line) });
    try {
      const mail = notice();
      await dev.service.orm.em.fork().transactional((em) => outbox.enqueue(em, mail, {}));
      const folder = outboxFolder(dev.config.dataDir);
      expect(startupBanner(dev.config, dev.service).join('\n')).toContain(`written to ${folder}`);
      expect(startupBanner(app.config, app.service).join('\n')).not.toContain('Mail is not sent');
      // The file is written first, then its line logged.
      const loggedFile = () => lines.some((line) => (JSON.parse(line) as { file?: string }).file);
      await eventually(
        async () => fs.existsSync(folder) && fs.readdirSync(folder).length > 0 && loggedFile(),
        'a mail file is written and logged',
      );
      const [file] = fs.readdirSync(folder);
      expect(file).toMatch(/-test_notice-\d+\.eml$/);
      const message = fs.readFileSync(path.join(folder, file!), 'utf8');
      expect(message).toMatch(new RegExp(`^To: ${mail.to}$`, 'm'));
      expect(message).toMatch(/^Subject: Please confirm <now>$/m);
      const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.file);
      expect(logged).toMatchObject({ kind: 'test_notice', links: [mail.text.match(/http:\S+/)![0]] });
    } finally {
      await dev.stop();
    }
  });
});
