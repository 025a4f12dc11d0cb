import { describe, expect, it } from '@jest/globals';
import { fakeTransaction } from '../../../test/support/fake-sql';
import { LoaderRegistry, type Scope } from '../../kernel/scope';
import type { AccessPolicy } from '../permissions/access-policy';
import { accountCache } from './account-cache';
import { UsersService } from './users.service';

const id = (n: number) => n.toString(16).padStart(10, '0');

/** A service whose permission check and account table are fakes that record what they are asked. */
function fixture() {
  const checked: string[][] = [];
  const selected: string[][] = [];
  const access = {
    allowedTargets: async (_scope: Scope, targets: readonly string[]) => {
      checked.push([...targets]);
      return new Set(targets.filter((target) => target !== id(2)));
    },
  } as unknown as AccessPolicy;
  // The accounts' read, its ids bound as one array.
  const em = fakeTransaction((_sql, [ids]) => {
    selected.push(ids as string[]);
    return (ids as string[]).map((userId) => ({ id: userId, emails: [], roles: [] }));
  });
  const scope = {
    principal: { userId: id(1), isServer: false },
    em,
    loaders: new LoaderRegistry(),
  } as unknown as Scope;
  // Not listening to the database's notices: every read goes to the (fake) table.
  const notices = { listening: false, on: () => undefined, onConnect: () => undefined };
  return { service: new UsersService(access, accountCache(notices)), scope, checked, selected };
}

describe('UsersService.many', () => {
  it(`takes up to ${UsersService.MAX_IDS} entries, reads each distinct id once and answers every entry in order`, async () => {
    const { service, scope, checked, selected } = fixture();
    const ids = Array.from({ length: UsersService.MAX_IDS }, (_, index) => id(1 + (index % 3)));
    const users = await service.many(scope, ids);
    expect(users.map((user) => user?.id ?? null)).toEqual(ids.map((userId) => (userId === id(2) ? null : userId)));
    expect(checked).toEqual([[id(1), id(2), id(3)]]);
    expect(selected).toEqual([[id(1), id(3)]]);
  });

  it(`refuses more than ${UsersService.MAX_IDS} entries, duplicates included, before looking anything up`, async () => {
    const { service, scope, checked, selected } = fixture();
    const ids = Array.from({ length: UsersService.MAX_IDS + 1 }, () => id(1));
    await expect(service.many(scope, ids)).rejects.toMatchObject({
      code: 'INVALID',
      message: `ids holds 101 entries; at most ${UsersService.MAX_IDS} are allowed`,
      details: { field: 'ids' },
    });
    expect([checked, selected]).toEqual([[], []]);
  });

  it('counts entries for the cost analysis with the same rule', () => {
    expect(UsersService.assertIdCount(['a', 'a'])).toBe(2);
    expect(() => UsersService.assertIdCount(new Array(20_000).fill('a'))).toThrow(/ids holds 20000 entries/);
  });
});

describe('UsersService.readable', () => {
  it('checks and reads the accounts asked in the same tick together, null where the caller may not read one', async () => {
    const { service, scope, checked, selected } = fixture();
    const users = await Promise.all([id(3), id(2), id(4)].map((userId) => service.readable(scope, userId)));
    expect(users.map((user) => user?.id ?? null)).toEqual([id(3), null, id(4)]);
    expect(checked).toEqual([[id(3), id(2), id(4)]]);
    expect(selected).toEqual([[id(3), id(4)]]);
  });

  it('refuses an anonymous caller as reading one account does', async () => {
    const { service, scope, checked } = fixture();
    const anonymous = { ...scope, principal: { userId: null, isServer: false, clientId: null } } as unknown as Scope;
    await expect(service.readable(anonymous, id(3))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(checked).toEqual([]);
  });
});
