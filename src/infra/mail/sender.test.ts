import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { openDatabase, type Orm } from '../database/orm';
import { createLogger } from '../logger';
import { OutboundMailSchema } from './outbound-mail.entity';
import { MailOutbox } from './outbox';
import { MailSender, retryDelayMs } from './sender';
import type { MailTransport, OutgoingMail } from './transports';

let database: TestDatabase;
let orm: Orm;
const outbox = new MailOutbox({ perAddress: 1000, perSource: 1000 });
const silent = createLogger('silent');
/** Slow enough that no failed mail is tried again during a test. */
const RETRIES = { firstMs: 60_000, maxMs: 600_000 };

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url, [OutboundMailSchema], 8);
});
afterAll(async () => {
  await orm?.close();
  await database?.release();
});

/** A transport that keeps what it is handed, or fails while `failing`. */
function recordingTransport() {
  const sent: OutgoingMail[] = [];
  const transport: MailTransport & { sent: OutgoingMail[]; failing: boolean } = {
    sent,
    failing: false,
    send: async (mail) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (transport.failing) throw new Error('421 try later');
      sent.push(mail);
    },
    close: () => undefined,
  };
  return transport;
}

const enqueue = (to: string) =>
  orm.em
    .fork()
    .transactional((em) =>
      outbox.enqueue(em, { to, kind: 'test', subject: `To ${to}`, text: 'key 123', html: '<p>key 123</p>' }, {}),
    );

const rowOf = async (to: string) =>
  (
    await database.query(
      `select attempts, sent_at, text_body, html_body, last_error,
              extract(epoch from due_at - now()) as due_in from outbound_mails where recipient = $1`,
      [to],
    )
  )[0];

/** Runs a sender until it has nothing due, then stops it. */
async function runOnce(sender: MailSender) {
  sender.start();
  await sender.idle();
  await sender.close();
}

describe('retryDelayMs', () => {
  it('doubles the wait with each failed attempt, up to the longest', () => {
    const retries = { firstMs: 1000, maxMs: 5000 };
    expect([1, 2, 3, 4, 50].map((attempts) => retryDelayMs(attempts, retries))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });
});

describe('MailSender', () => {
  it('sends each mail once when two instances share the outbox, and keeps no body once sent', async () => {
    const addresses = Array.from({ length: 20 }, (_, i) => `shared-${i}@example.org`);
    for (const to of addresses) await enqueue(to);
    const one = recordingTransport();
    const other = recordingTransport();
    await Promise.all([
      runOnce(new MailSender(() => orm.em.fork(), one, silent, RETRIES)),
      runOnce(new MailSender(() => orm.em.fork(), other, silent, RETRIES)),
    ]);
    const sentTo = [...one.sent, ...other.sent].map((mail) => mail.to).filter((to) => to.startsWith('shared-'));
    expect(sentTo.sort()).toEqual([...addresses].sort());
    expect(await rowOf(addresses[0]!)).toMatchObject({ attempts: 1, text_body: null, html_body: null });
    expect((await rowOf(addresses[0]!)).sent_at).not.toBeNull();
  });

  it('keeps a mail the server refused, trying it again after a wait that doubles', async () => {
    await enqueue('refused@example.org');
    const transport = recordingTransport();
    transport.failing = true;
    await runOnce(new MailSender(() => orm.em.fork(), transport, silent, RETRIES));
    const first = await rowOf('refused@example.org');
    expect(first).toMatchObject({ attempts: 1, sent_at: null, text_body: 'key 123', last_error: '421 try later' });
    expect(Number(first.due_in)).toBeGreaterThan(50);

    await database.query(`update outbound_mails set due_at = now() where recipient = 'refused@example.org'`);
    await runOnce(new MailSender(() => orm.em.fork(), transport, silent, RETRIES));
    const second = await rowOf('refused@example.org');
    expect(second).toMatchObject({ attempts: 2, sent_at: null });
    expect(Number(second.due_in)).toBeGreaterThan(110);

    transport.failing = false;
    await database.query(`update outbound_mails set due_at = now() where recipient = 'refused@example.org'`);
    await runOnce(new MailSender(() => orm.em.fork(), transport, silent, RETRIES));
    expect(transport.sent.map((mail) => mail.to)).toEqual(['refused@example.org']);
    expect(await rowOf('refused@example.org')).toMatchObject({ attempts: 3, last_error: null });
  });

  it('removes sent mails the limits no longer count, and gives up on mails unsent for days, logging each', async () => {
    await enqueue('old-sent@example.org');
    await enqueue('never-sent@example.org');
    await database.query(
      `update outbound_mails set created_at = now() - interval '2 hours', sent_at = now() - interval '2 hours'
        where recipient = 'old-sent@example.org'`,
    );
    await database.query(
      `update outbound_mails set created_at = now() - interval '4 days', due_at = now() + interval '1 hour',
              last_error = '550 no such user' where recipient = 'never-sent@example.org'`,
    );
    const lines: string[] = [];
    const logger = createLogger('info', { destination: { write: (line: string) => void lines.push(line) } });
    await runOnce(new MailSender(() => orm.em.fork(), recordingTransport(), logger, RETRIES));
    expect(await rowOf('old-sent@example.org')).toBeUndefined();
    expect(await rowOf('never-sent@example.org')).toBeUndefined();
    expect(lines.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ kind: 'test', lastError: '550 no such user', msg: expect.stringMatching(/given up/) }),
    );
  });
});
