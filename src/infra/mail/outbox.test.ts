import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { openDatabase, type Orm } from '../database/orm';
import { retryAfterOf } from '../../kernel/errors';
import type { Mail } from './mail';
import { OutboundMailSchema } from './outbound-mail.entity';
import { MailOutbox } from './outbox';

let database: TestDatabase;
let orm: Orm;
const outbox = new MailOutbox({ perAddress: 2, perSource: 3 });

beforeAll(async () => {
  database = await createTestDatabase();
  orm = await openDatabase(database.url, [OutboundMailSchema], 8);
});
afterAll(async () => {
  await orm?.close();
  await database?.release();
});

const mailTo = (to: string): Mail => ({ to, kind: 'test', subject: 'Hello', text: 'Hello', html: '<p>Hello</p>' });

const enqueue = (mail: Mail, source?: string) =>
  orm.em.fork().transactional((em) => outbox.enqueue(em, mail, { source }));

/** Settles to 'ok' or the refusal's code. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: { code?: string }) => error.code ?? String(error),
  );

describe('MailOutbox.enqueue', () => {
  it('needs the transaction of the action: outside one it refuses and writes nothing', async () => {
    await expect(outbox.enqueue(orm.em.fork(), mailTo('outside@example.org'), {})).rejects.toThrow(/transaction/);
    expect(await database.query(`select 1 from outbound_mails where recipient = 'outside@example.org'`)).toEqual([]);
  });

  it('refuses a recipient that is not one plain address, which would send the mail elsewhere too', async () => {
    for (const to of [
      'a@example.org, b@example.org',
      'Eve <eve@example.org>',
      'a@example.org\nBcc: b@example.org',
      'nobody',
    ])
      expect(await outcome(enqueue(mailTo(to)))).toBe('INVALID');
    expect(await outcome(enqueue(mailTo(' Plain.Person+tag@example.org ')))).toBe('ok');
  });

  it('lets exactly the limit through when enqueues to one address race from several connections', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => outcome(enqueue(mailTo('raced@example.org'), `192.0.2.${i}`))),
    );
    expect(results.filter((result) => result === 'ok')).toHaveLength(2);
    expect(results.filter((result) => result === 'RATE_LIMITED')).toHaveLength(4);
    expect(await database.query(`select 1 from outbound_mails where recipient = 'raced@example.org'`)).toHaveLength(2);
  });

  it('asks a refused caller to wait until the oldest counted mail leaves the hour', async () => {
    await enqueue(mailTo('waiting@example.org'));
    await enqueue(mailTo('waiting@example.org'));
    // The older of the two was sent 50 minutes ago: 10 minutes until it no longer counts.
    await database.query(
      `update outbound_mails set created_at = now() - interval '50 minutes' where id =
        (select min(id) from outbound_mails where recipient = 'waiting@example.org')`,
    );
    const refusal = await enqueue(mailTo('waiting@example.org')).catch((error: unknown) => error);
    expect(retryAfterOf(refusal)).toBeGreaterThan(590);
    expect(retryAfterOf(refusal)).toBeLessThanOrEqual(601);
  });

  it('counts only the last hour', async () => {
    await enqueue(mailTo('hourly@example.org'));
    await enqueue(mailTo('hourly@example.org'));
    await database.query(
      `update outbound_mails set created_at = now() - interval '61 minutes' where recipient = 'hourly@example.org'`,
    );
    expect(await outcome(enqueue(mailTo('hourly@example.org')))).toBe('ok');
  });

  it('counts no source for work the service starts itself', async () => {
    for (let i = 0; i < 4; i += 1) expect(await outcome(enqueue(mailTo(`service-${i}@example.org`)))).toBe('ok');
  });
});
