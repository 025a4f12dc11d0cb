import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AS_CLIENT,
  AS_SERVER,
  asUser,
  contentOf,
  outcomeOf,
  startDomainWorld,
  type DomainWorld,
} from '../../../test/support/domain-services';
import { hexId } from '../../kernel/ids';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import type { AccountLifecycleService } from './account-lifecycle.service';
import { hashPassword } from './password-hash';

const PASSWORD = 'correct-horse-battery';

let world: DomainWorld;
let lifecycle: AccountLifecycleService;
let passwordHash: string;

beforeAll(async () => {
  world = await startDomainWorld();
  lifecycle = world.services.lifecycle;
  passwordHash = await hashPassword(PASSWORD);
});
afterAll(() => world?.stop());

const as = (principal: Principal) => world.scope(principal);
const exists = async (userId: string) => (await world.services.users.existing(as(AS_SERVER), [userId])).has(userId);
const heldBy = (holder: string, target: string) =>
  world.services.permissions.permissionsOf(as(AS_SERVER), target, holder);
const email = () => `${hexId(8)}@example.org`;

describe('custodial accounts', () => {
  it('a user creates one it has custody of: custodian, view and upload; the account has no password nor roles', async () => {
    const parent = await world.account();
    const username = email();
    const child = await lifecycle.createCustodial(as(asUser(parent)), parent, { username });
    expect(child).toMatchObject({ username, emails: [username], passwordHash: null, roles: [], createdUserId: parent });
    expect(await heldBy(parent, child.id)).toEqual(['custodian', 'view', 'upload']);
  });

  it('a server creates one for any existing user, and one needs no login name at all', async () => {
    const parent = await world.account();
    const child = await lifecycle.createCustodial(as(AS_SERVER), parent, {});
    expect(child).toMatchObject({ username: null, emails: [], createdUserId: null });
    expect(await heldBy(parent, child.id)).toEqual(['custodian', 'view', 'upload']);
    expect(await outcomeOf(lifecycle.createCustodial(as(AS_SERVER), '0000000000', {}))).toBe('NOT_FOUND');
  });

  it('nobody else may make someone a custodian: not even its own custodian', async () => {
    const [parent, guardian] = [await world.account(), await world.account()];
    await world.share(parent, guardian, ['custodian']);
    expect(await outcomeOf(lifecycle.createCustodial(as(asUser(guardian)), parent, {}))).toBe('FORBIDDEN');
    expect(await outcomeOf(lifecycle.createCustodial(as(AS_CLIENT), parent, {}))).toBe('FORBIDDEN');
    expect(await outcomeOf(lifecycle.createCustodial(as(ANONYMOUS), parent, {}))).toBe('UNAUTHENTICATED');
  });

  it('checks the login name and emails, naming the field, and refuses an address already in use', async () => {
    const parent = await world.account();
    const scope = () => as(asUser(parent));
    await expect(lifecycle.createCustodial(scope(), parent, { username: 'nope' })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'username' },
    });
    await expect(lifecycle.createCustodial(scope(), parent, { emails: [] })).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'emails' },
    });
    const taken = email();
    await world.account({ email: taken });
    expect(await outcomeOf(lifecycle.createCustodial(scope(), parent, { username: taken }))).toBe('CONFLICT');
  });
});

describe('a person signing up with an address a custodial account holds', () => {
  const signUp = (address: string) =>
    world.services.users.signUp(as(ANONYMOUS), { username: address, emails: [address], password: PASSWORD });

  it('signs up, and the custodial account gives the address up, keeping its custodian', async () => {
    const parent = await world.account();
    const address = email();
    const child = await lifecycle.createCustodial(as(asUser(parent)), parent, { username: address });
    const person = await signUp(address.toUpperCase());
    expect((await world.services.users.findByEmail(world.orm.em.fork(), address))?.id).toBe(person.id);
    const released = await world.services.users.findById(world.orm.em.fork(), child.id);
    expect(released).toMatchObject({ username: null, emails: [], createdUserId: parent });
    expect(await heldBy(parent, child.id)).toEqual(['custodian', 'view', 'upload']);
  });

  it('two people signing up with it at once: one takes it, the other is told it is taken', async () => {
    const parent = await world.account();
    const address = email();
    await lifecycle.createCustodial(as(asUser(parent)), parent, { username: address });
    const outcomes = await Promise.all([1, 2, 3].map(() => outcomeOf(signUp(address))));
    expect(outcomes.sort()).toEqual(['CONFLICT', 'CONFLICT', 'ok']);
    const holders = await world.database.query(`select id from users where $1 = any(emails)`, [address]);
    expect(holders).toHaveLength(1);
    expect((await world.services.users.findByEmail(world.orm.em.fork(), address))?.id).toBe(holders[0]!.id);
  });

  it('an address of an account with a password of its own, or of an account nobody created for someone, stays taken', async () => {
    const [owned, provisioned] = [email(), email()];
    await world.account({ email: owned, passwordHash });
    await world.services.users.provision(world.orm.em.fork(), provisioned, true);
    for (const address of [owned, provisioned]) expect(await outcomeOf(signUp(address))).toBe('CONFLICT');
  });

  it('a custodian adding the address of a custodial account to another account is still refused', async () => {
    const parent = await world.account();
    const address = email();
    await lifecycle.createCustodial(as(asUser(parent)), parent, { username: address });
    expect(await outcomeOf(lifecycle.createCustodial(as(asUser(parent)), parent, { username: address }))).toBe(
      'CONFLICT',
    );
  });
});

describe('deleting an account', () => {
  it('the owner confirms with its current password; without it or with a wrong one nothing happens', async () => {
    const owner = await world.account({ passwordHash });
    for (const password of [undefined, null, '', 'wrong password'])
      expect(await outcomeOf(lifecycle.delete(as(asUser(owner)), owner, password))).toBe('PASSWORD_REQUIRED');
    expect(await exists(owner)).toBe(true);
    await lifecycle.delete(as(asUser(owner)), owner, PASSWORD);
    expect(await exists(owner)).toBe(false);
  });

  it('an account without a password cannot be deleted by its owner, only by its custodian or a server', async () => {
    const parent = await world.account();
    const child = (await lifecycle.createCustodial(as(asUser(parent)), parent, {})).id;
    expect(await outcomeOf(lifecycle.delete(as(asUser(child)), child, ''))).toBe('PASSWORD_REQUIRED');
    await lifecycle.delete(as(asUser(parent)), child, undefined);
    expect(await exists(child)).toBe(false);
  });

  it('a viewer, an uploader and an outsider may not; an anonymous caller must authenticate', async () => {
    const owner = await world.account();
    const [viewer, uploader, outsider] = [await world.account(), await world.account(), await world.account()];
    await world.share(owner, viewer, ['view']);
    await world.share(owner, uploader, ['upload']);
    for (const caller of [viewer, uploader, outsider])
      expect(await outcomeOf(lifecycle.delete(as(asUser(caller)), owner, PASSWORD))).toBe('FORBIDDEN');
    expect(await outcomeOf(lifecycle.delete(as(ANONYMOUS), owner, undefined))).toBe('UNAUTHENTICATED');
    expect(await exists(owner)).toBe(true);
  });

  it('an account already gone: done, for a server; refused, for anyone else', async () => {
    expect(await outcomeOf(lifecycle.delete(as(AS_SERVER), '0000000000', undefined))).toBe('ok');
    const caller = await world.account();
    expect(await outcomeOf(lifecycle.delete(as(asUser(caller)), '0000000000', undefined))).toBe('FORBIDDEN');
    await expect(lifecycle.delete(as(AS_SERVER), 'bad', undefined)).rejects.toMatchObject({
      code: 'INVALID',
      details: { field: 'userId' },
    });
  });

  it('takes everything the account holds with it, and leaves others’ data alone', async () => {
    const [leaving, friend] = [await world.account(), await world.account()];
    await world.share(leaving, friend, ['view']);
    await world.share(friend, leaving, ['upload']);
    const mine = await world.services.blobs.create(as(asUser(leaving)), leaving, {
      mediaType: 'text/plain',
      content: contentOf('mine'),
    });
    const theirs = await world.services.blobs.create(as(asUser(leaving)), friend, {
      mediaType: 'text/plain',
      content: contentOf('uploaded for a friend'),
    });
    await lifecycle.delete(as(AS_SERVER), leaving, undefined);
    expect(await heldBy(friend, leaving)).toBeNull();
    expect(await heldBy(leaving, friend)).toBeNull();
    expect(await outcomeOf(world.services.blobs.get(as(AS_SERVER), mine.id))).toBe('NOT_FOUND');
    expect(await world.storedKeys(`blobs/${leaving}/`)).toEqual([]);
    expect((await world.services.blobs.get(as(AS_SERVER), theirs.id)).userId).toBe(friend);
    expect(await exists(friend)).toBe(true);
  });
});
