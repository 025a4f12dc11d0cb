import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { asUser, outcomeOf, startDomainWorld, type DomainWorld } from '../../../test/support/domain-services';
import { recordedOutbox } from '../../../test/support/recorded-mail';
import { ANONYMOUS } from '../../kernel/principal';
import { hashPassword } from '../users/password-hash';
import { ConfirmationStore } from './confirmations.store';
import { PasswordResetsService } from './password-resets.service';

let world: DomainWorld;
let resets: PasswordResetsService;
let store: ConfirmationStore;
const lifetimes = { signup: 3600, passwordReset: 600, invitation: 3600 };
const outbox = recordedOutbox({ perAddress: 2, perSource: 1000 });
const { mails } = outbox;
/** The accounts whose sessions the service ended, in order. */
const ended: string[] = [];

beforeAll(async () => {
  world = await startDomainWorld();
  store = new ConfirmationStore(outbox.queue, lifetimes);
  const links = { baseUrl: 'https://islet.test', realm: 'qa2' };
  resets = new PasswordResetsService(store, world.services.users, links, lifetimes, async (userId) => {
    ended.push(userId);
  });
}, 30_000);
afterAll(() => world?.stop());

const keysMailedTo = (address: string) =>
  outbox.keysIn(address, /^https:\/\/islet\.test\/realms\/qa2\/login-actions\/reset-password\?key=(\S{32})$/m);

const anyone = () => world.scope(ANONYMOUS);

async function account(fields: { custodial?: boolean } = {}) {
  const email = `reset.${Math.random().toString(16).slice(2)}@example.org`;
  if (fields.custodial) {
    const custodian = await world.account();
    const id = (
      await world.services.users.insert(world.orm.em.fork(), { username: null, emails: [email], roles: [] }, custodian)
    ).id;
    return { id, email };
  }
  return { id: await world.account({ email, passwordHash: await hashPassword('old-password-1') }), email };
}

const logsIn = async (email: string, password: string) =>
  (await world.services.users.authenticate(world.orm.em.fork(), email, password)) !== null;

describe('asking for a reset', () => {
  it('mails a key to an account’s address, and nothing (answering the same) for an unknown or custodial one', async () => {
    const { email } = await account();
    const custodial = await account({ custodial: true });
    const nobody = `nobody.${Math.random().toString(16).slice(2)}@example.org`;
    for (const address of [email.toUpperCase(), custodial.email, nobody])
      await expect(resets.send(anyone(), address)).resolves.toBeUndefined();
    expect(keysMailedTo(email)).toHaveLength(1);
    expect([...keysMailedTo(custodial.email), ...keysMailedTo(nobody)]).toEqual([]);
    expect(mails.at(-1)!.subject).toBe('Reset your password');
    expect(mails.at(-1)!.text).toContain('for 10 minutes');
  });

  it('answers the same when the mail limit refuses, and the last key mailed still works', async () => {
    const { email } = await account();
    for (let asked = 0; asked < 3; asked += 1) await expect(resets.send(anyone(), email)).resolves.toBeUndefined();
    const keys = keysMailedTo(email);
    expect(keys).toHaveLength(2);
    expect(await outcomeOf(resets.accept(anyone(), { key: keys[1]!, email, password: 'new-password-1' }))).toBe('ok');
  });

  it('links to the realm it was asked from', async () => {
    const { email } = await account();
    await resets.send(anyone(), email, 'qa4');
    expect(mails.at(-1)!.text).toContain('https://islet.test/realms/qa4/login-actions/reset-password?key=');
  });

  it('refuses what is not an address (INVALID)', async () => {
    expect(await outcomeOf(resets.send(anyone(), 'nobody'))).toBe('INVALID');
  });
});

describe('setting the new password', () => {
  it('needs the key and the address it was mailed to; a bad password leaves the key usable', async () => {
    const { id, email } = await account();
    await resets.send(anyone(), email);
    const [key] = keysMailedTo(email);
    expect(
      await outcomeOf(resets.accept(anyone(), { key: key!, email: 'other@example.org', password: 'new-pass-1' })),
    ).toBe('NOT_FOUND');
    expect(await outcomeOf(resets.accept(anyone(), { key: key!, email, password: 'short' }))).toBe('INVALID');
    expect(await outcomeOf(resets.accept(anyone(), { key: key!, email, password: 'new-pass-1' }))).toBe('ok');
    expect(await logsIn(email, 'new-pass-1')).toBe(true);
    expect(await logsIn(email, 'old-password-1')).toBe(false);
    expect(ended).toContain(id);
    expect(await outcomeOf(resets.accept(anyone(), { key: key!, email, password: 'new-pass-2' }))).toBe('CONFLICT');
  });

  it('ends the account’s other reset keys and verifies the address it proved', async () => {
    const { id, email } = await account();
    await resets.send(anyone(), email);
    await resets.send(anyone(), email);
    const [older, newer] = keysMailedTo(email);
    // Asking again replaced the older key.
    expect(await outcomeOf(resets.addressOf(anyone(), older!))).toBe('CONFLICT');
    expect(await resets.addressOf(anyone(), newer!)).toBe(email);
    await resets.accept(anyone(), { key: newer!, email, password: 'new-pass-1' });
    const user = await world.services.users.get(world.scope(asUser(id)), id);
    expect(user.emailVerified).toBe(true);
  });

  it('refuses a sign-up key as an unknown key (NOT_FOUND)', async () => {
    const { id, email } = await account();
    const { key } = await world.orm.em
      .fork()
      .transactional((tx) =>
        store.create(
          tx,
          { type: 'signup_confirmation', email, creatorId: id, userId: id },
          () => ({ to: email, subject: 'Confirm', text: '', html: '', kind: 'signup_confirmation' }),
          {},
        ),
      );
    expect(await outcomeOf(resets.accept(anyone(), { key, email, password: 'new-pass-1' }))).toBe('NOT_FOUND');
    expect(await logsIn(email, 'old-password-1')).toBe(true);
  });
});
