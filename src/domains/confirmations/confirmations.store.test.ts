import { describe, expect, it } from '@jest/globals';
import type { EntityManager } from '@mikro-orm/postgresql';
import { useTestOrm } from '../../../test/support/test-orm';
import type { Mail, MailQueue } from '../../infra/mail/mail';
import { hashConfirmationKey, newConfirmationKey } from './confirmation-keys';
import type { ConfirmationType } from './confirmation.entity';
import { ConfirmationStore, type NewConfirmation } from './confirmations.store';

const sent: Mail[] = [];
const queue: MailQueue = {
  enqueue: async (_em, mail) => {
    sent.push(mail);
  },
};
const store = () => new ConfirmationStore(queue, { signup: 7 * 24 * 3600, passwordReset: 3600, invitation: 600 });

const tested = useTestOrm();

let counter = 0;
const nextEmail = () => `Person${++counter}@Example.test`;

async function create(input: Partial<NewConfirmation> = {}) {
  const email = input.email ?? nextEmail();
  return tested.orm.em
    .fork()
    .transactional((tx) =>
      store().create(
        tx,
        { type: 'signup_confirmation', email, creatorId: 'a0a0a0a0a0', userId: 'a0a0a0a0a0', ...input },
        (key) => ({ to: email, subject: 'Confirm', text: `open /confirm?key=${key}`, html: '', kind: 'test' }),
        {},
      ),
    );
}

const complete = (types: readonly ConfirmationType[], key: unknown) =>
  tested.orm.em.fork().transactional((tx: EntityManager) => store().complete(tx, types, key));

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: { code?: string; message: string }) => `${error.code}: ${error.message}`,
  );

describe('confirmation keys', () => {
  it('are 32 URL-safe characters, never the same twice, and stored only as their SHA-256', async () => {
    const keys = new Set(Array.from({ length: 1000 }, newConfirmationKey));
    expect(keys.size).toBe(1000);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);

    const { key, confirmation } = await create();
    expect(sent.at(-1)!.text).toContain(key);
    const [row] = await tested.database.query('select * from confirmations where id = $1', [confirmation.id]);
    expect(row!.key_hash).toBe(hashConfirmationKey(key));
    expect(JSON.stringify(row)).not.toContain(key);
  });
});

describe('a confirmation', () => {
  it('is written with its address lower-cased, pending, and expiring after its type’s lifetime', async () => {
    const before = Date.now();
    const { confirmation } = await create({ type: 'password_reset', email: 'Mixed@Case.test' });
    expect(confirmation).toMatchObject({ email: 'mixed@case.test', status: 'pending', type: 'password_reset' });
    const lifetime = confirmation.expiresAt.getTime() - confirmation.created.getTime();
    expect(lifetime).toBe(3600 * 1000);
    expect(confirmation.created.getTime()).toBeGreaterThanOrEqual(before);
  });

  it('is not written, nor its mail kept, when the action that needs it rolls back', async () => {
    const email = nextEmail();
    await expect(
      tested.orm.em.fork().transactional(async (tx) => {
        await store().create(
          tx,
          { type: 'signup_confirmation', email, creatorId: null, userId: null },
          (key) => ({ to: email, subject: '', text: key, html: '', kind: 'test' }),
          {},
        );
        throw new Error('the action failed');
      }),
    ).rejects.toThrow('the action failed');
    expect(await tested.database.query('select 1 from confirmations where email = $1', [email.toLowerCase()])).toEqual(
      [],
    );
  });

  it('is completed once: the same key again is refused as used (409)', async () => {
    const { key } = await create();
    expect(await complete(['signup_confirmation'], key)).toMatchObject({ status: 'completed' });
    expect(await failure(complete(['signup_confirmation'], key))).toBe(
      'CONFLICT: This confirmation is already completed',
    );
  });

  it('is completed once when two uses of the key race', async () => {
    const { key } = await create();
    const outcomes = await Promise.all([1, 2].map(() => failure(complete(['signup_confirmation'], key))));
    expect(outcomes.sort()).toEqual(['CONFLICT: This confirmation is already completed', 'ok']);
  });

  it('refuses a key of another flow exactly as an unknown or malformed key (404)', async () => {
    const { key } = await create({ type: 'signup_confirmation' });
    const unknown = await failure(complete(['password_reset'], newConfirmationKey()));
    expect(unknown).toBe('NOT_FOUND: No confirmation has this key');
    expect(await failure(complete(['password_reset'], key))).toBe(unknown);
    for (const malformed of ['', 'short', `${key}x`, 42, null, '../../../../etc/passwd/aaaaaaaaaaa'])
      expect(await failure(complete(['password_reset'], malformed))).toBe(unknown);
    // Still usable by its own flow.
    expect(await failure(complete(['signup_confirmation'], key))).toBe('ok');
  });

  it('is refused once expired (404, saying so), and stays pending', async () => {
    const { key, confirmation } = await create();
    await tested.database.query(`update confirmations set expires_at = now() - interval '1 second' where id = $1`, [
      confirmation.id,
    ]);
    expect(await failure(complete(['signup_confirmation'], key))).toBe(
      'NOT_FOUND: This confirmation has expired; ask for a new one',
    );
    const [row] = await tested.database.query('select status from confirmations where id = $1', [confirmation.id]);
    expect(row!.status).toBe('pending');
  });

  it('is replaced by a newer one of its type: cancelPending ends the older keys (409), other types stay', async () => {
    const email = nextEmail();
    const old = await create({ email, userId: 'b1b1b1b1b1' });
    const reset = await create({ email, userId: 'b1b1b1b1b1', type: 'password_reset' });
    const canceled = await tested.orm.em
      .fork()
      .transactional((tx) => store().cancelPending(tx, 'signup_confirmation', { userId: 'b1b1b1b1b1' }));
    expect(canceled).toBe(1);
    expect(await failure(complete(['signup_confirmation'], old.key))).toBe(
      'CONFLICT: This confirmation is already canceled',
    );
    expect(await failure(complete(['password_reset'], reset.key))).toBe('ok');
  });

  it('is listed by type, creator, recipient, address (any case) and status, newest first', async () => {
    const email = nextEmail();
    const first = await create({ email, type: 'careteam_invitation', creatorId: 'c2c2c2c2c2', userId: null });
    const second = await create({ email, type: 'careteam_invitation', creatorId: 'c2c2c2c2c2', userId: null });
    await create({ email, type: 'signup_confirmation', creatorId: 'c2c2c2c2c2' });
    const em = tested.orm.em.fork();
    const ids = async (filter: Parameters<ConfirmationStore['list']>[1]) =>
      (await store().list(em, filter)).map((found) => found.id);
    expect(await ids({ types: ['careteam_invitation'], creatorId: 'c2c2c2c2c2' })).toEqual([
      second.confirmation.id,
      first.confirmation.id,
    ]);
    expect(await ids({ types: ['careteam_invitation'], emails: [email.toUpperCase()] })).toHaveLength(2);
    await complete(['careteam_invitation'], first.key);
    expect(await ids({ types: ['careteam_invitation'], emails: [email], statuses: ['pending'] })).toEqual([
      second.confirmation.id,
    ]);
  });
});
