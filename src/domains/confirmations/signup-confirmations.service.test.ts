import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_SERVER,
  asUser,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { recordedOutbox } from '../../../test/support/recorded-mail';
import { ANONYMOUS } from '../../kernel/principal';
import { ConfirmationStore } from './confirmations.store';
import { SignupConfirmationsService } from './signup-confirmations.service';

let world: DomainWorld;
let signups: SignupConfirmationsService;
const lifetimes = { signup: 3600, passwordReset: 600, invitation: 3600 };
const outbox = recordedOutbox({ perAddress: 3, perSource: 1000 });

beforeAll(async () => {
  world = await startDomainWorld();
  const store = new ConfirmationStore(outbox.queue, lifetimes);
  signups = new SignupConfirmationsService(
    store,
    world.services.users,
    { baseUrl: 'https://islet.test', realm: 'qa1' },
    lifetimes,
  );
});
afterAll(() => world?.stop());

/** The keys mailed to `address`, oldest first, as their links in the mails carry them. */
const keysMailedTo = (address: string) =>
  outbox.keysIn(address, /^https:\/\/islet\.test\/realms\/qa1\/login-actions\/verify-email\?key=(\S{32})$/m);

async function account() {
  const email = `Signup.${Math.random().toString(16).slice(2)}@Example.org`;
  return { id: await world.account({ email }), email };
}

const isVerified = async (userId: string) =>
  (await world.services.users.findById(world.orm.em.fork(), userId))!.emailVerified;

describe('sending a sign-up key', () => {
  it('is for the account itself or a server only', async () => {
    const [{ id }, other] = await Promise.all([account(), account()]);
    expect(await outcomeOf(signups.send(world.scope(asUser(other.id)), id))).toBe('FORBIDDEN');
    expect(await outcomeOf(signups.send(world.scope(ANONYMOUS), id))).toBe('UNAUTHENTICATED');
    expect(await outcomeOf(signups.send(world.scope(AS_SERVER), id))).toBe('ok');
    expect(await outcomeOf(signups.send(world.scope(AS_SERVER), 'ffffffffff'))).toBe('NOT_FOUND');
  });

  it('mails the account’s address (lower-cased); only the newest key works, once, and verifies it', async () => {
    const { id, email } = await account();
    const sent = await signups.send(world.scope(asUser(id)), id);
    expect(sent).toMatchObject({ email: email.toLowerCase(), type: 'signup_confirmation', userId: id });
    await signups.send(world.scope(asUser(id)), id);
    const [older, newer] = keysMailedTo(email);

    expect(await outcomeOf(signups.accept(world.scope(ANONYMOUS), older!))).toBe('CONFLICT');
    expect(await isVerified(id)).toBe(false);
    expect(await outcomeOf(signups.accept(world.scope(ANONYMOUS), newer!))).toBe('ok');
    expect(await isVerified(id)).toBe(true);
    expect(await outcomeOf(signups.accept(world.scope(ANONYMOUS), newer!))).toBe('CONFLICT');
    expect(await outcomeOf(signups.send(world.scope(asUser(id)), id))).toBe('CONFLICT');
  });
});

describe('resending by address', () => {
  it('mails only an unverified account with that address, and answers the same for any other', async () => {
    const { id, email } = await account();
    await expect(signups.resend(world.scope(ANONYMOUS), email.toUpperCase())).resolves.toBeUndefined();
    expect(keysMailedTo(email)).toHaveLength(1);

    const nobody = `nobody.${Math.random().toString(16).slice(2)}@example.org`;
    await expect(signups.resend(world.scope(ANONYMOUS), nobody)).resolves.toBeUndefined();
    expect(keysMailedTo(nobody)).toEqual([]);

    await signups.accept(world.scope(ANONYMOUS), keysMailedTo(email)[0]!);
    await expect(signups.resend(world.scope(ANONYMOUS), email)).resolves.toBeUndefined();
    expect(keysMailedTo(email)).toHaveLength(1);
    expect(await isVerified(id)).toBe(true);
  });

  it('answers the same when the mail limit refuses, writing no key', async () => {
    const { email } = await account();
    for (let sent = 0; sent < 3; sent += 1) await signups.resend(world.scope(ANONYMOUS), email);
    await expect(signups.resend(world.scope(ANONYMOUS), email)).resolves.toBeUndefined();
    expect(keysMailedTo(email)).toHaveLength(3);
    const pending = await world.database.query(
      `select count(*)::int as n from confirmations where email = $1 and status = 'pending'`,
      [email.toLowerCase()],
    );
    expect(pending).toEqual([{ n: 1 }]);
  });

  it('refuses what is not an address (INVALID)', async () => {
    expect(await outcomeOf(signups.resend(world.scope(ANONYMOUS), 'not-an-address'))).toBe('INVALID');
  });
});

describe('changing an account’s addresses', () => {
  it('makes it unverified, ends the old key and mails one to the new address', async () => {
    const { id, email } = await account();
    await signups.send(world.scope(asUser(id)), id);
    const [old] = keysMailedTo(email);
    await world.services.users.update(world.scope(AS_SERVER), id, { emailVerified: true });

    const moved = `moved.${Math.random().toString(16).slice(2)}@example.org`;
    const changed = await world.services.users.update(world.scope(AS_SERVER), id, {
      username: moved,
      emails: [moved],
    });
    expect(changed.emailVerified).toBe(false);
    // The service's own hook (src/services.ts) mailed the new address and ended the old key.
    expect(await outcomeOf(signups.accept(world.scope(ANONYMOUS), old!))).toBe('CONFLICT');
    await signups.addressesChanged(world.scope(AS_SERVER), changed);
    const [fresh] = keysMailedTo(moved);
    expect(await outcomeOf(signups.accept(world.scope(ANONYMOUS), fresh!))).toBe('ok');
    expect(await isVerified(id)).toBe(true);
  });

  it('keeps it verified when the same addresses are sent back', async () => {
    const { id, email } = await account();
    await world.services.users.update(world.scope(AS_SERVER), id, { emailVerified: true });
    const same = await world.services.users.update(world.scope(AS_SERVER), id, { username: email, emails: [email] });
    expect(same.emailVerified).toBe(true);
    expect(keysMailedTo(email)).toEqual([]);
  });
});
