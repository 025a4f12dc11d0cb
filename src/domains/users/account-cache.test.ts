import { describe, expect, it } from '@jest/globals';
import { ACCOUNT_CHANGED_CHANNEL, AccountCache, CHANGE_SETTLES_MS, type AccountNotices } from './account-cache';
import type { UserRecord } from './user.entity';

const account = (id: string, username = `${id}@example.org`): UserRecord => ({
  id,
  username,
  emails: [username],
  passwordHash: null,
  roles: [],
  emailVerified: true,
  termsAccepted: null,
  createdTime: new Date('2026-11-01T00:00:00Z'),
  createdUserId: null,
  modifiedTime: null,
  modifiedUserId: null,
});

/** A cache over a fake table whose reads it counts, with notices the test sends itself. */
function fixture() {
  const listeners: ((payload: string) => void)[] = [];
  const connectHooks: (() => Promise<void>)[] = [];
  const notices: AccountNotices & { listening: boolean } = {
    listening: true,
    on: (channel, listener) => {
      if (channel === ACCOUNT_CHANGED_CHANNEL) listeners.push(listener);
    },
    onConnect: (hook) => void connectHooks.push(hook),
  };
  let clock = 0;
  const cache = new AccountCache(notices, () => clock);
  const table = new Map([account('a'), account('b')].map((row) => [row.id, row]));
  const loaded: string[][] = [];
  const load = async (ids: readonly string[]) => {
    loaded.push([...ids]);
    return new Map(ids.flatMap((id) => (table.has(id) ? [[id, { ...table.get(id)! }] as const] : [])));
  };
  return {
    cache,
    notices,
    table,
    loaded,
    load,
    notify: (id: string) => listeners.forEach((listener) => listener(id)),
    reconnect: () => Promise.all(connectHooks.map((hook) => hook())),
    advance: (ms: number) => void (clock += ms),
  };
}

describe('AccountCache', () => {
  it('reads an account once and then from memory, loading only the ids it does not keep', async () => {
    const { cache, loaded, load } = fixture();
    expect([...(await cache.read(['a'], load)).keys()]).toEqual(['a']);
    const both = await cache.read(['a', 'b', 'missing'], load);
    expect([...both.keys()].sort()).toEqual(['a', 'b']);
    await cache.read(['a', 'b'], load);
    expect(loaded).toEqual([['a'], ['b', 'missing']]);
  });

  it('forgets an account named by a notice, so the next read sees the change', async () => {
    const { cache, table, load, notify } = fixture();
    await cache.read(['a'], load);
    table.set('a', account('a', 'renamed@example.org'));
    notify('a');
    expect((await cache.read(['a'], load)).get('a')?.username).toBe('renamed@example.org');
  });

  it('keeps nothing from a read during which a notice arrived: what it read may predate the change', async () => {
    const { cache, loaded, load, notify } = fixture();
    await cache.read(['a'], async (ids) => {
      const rows = await load(ids);
      notify('a');
      return rows;
    });
    await cache.read(['a'], load);
    expect(loaded).toEqual([['a'], ['a']]);
  });

  it('reads an account this instance is changing from the table alone until the change settles', async () => {
    const { cache, loaded, load, advance } = fixture();
    await cache.read(['a'], load);
    cache.changing('a');
    await cache.read(['a'], load);
    advance(CHANGE_SETTLES_MS - 1);
    await cache.read(['a'], load);
    advance(1);
    await cache.read(['a'], load);
    await cache.read(['a'], load);
    expect(loaded).toEqual([['a'], ['a'], ['a'], ['a']]);
  });

  it('serves and keeps nothing while notices could be missed, and forgets everything when they resume', async () => {
    const { cache, notices, loaded, load, reconnect } = fixture();
    await cache.read(['a'], load);
    notices.listening = false;
    await cache.read(['a'], load);
    await cache.read(['b'], load);
    await reconnect();
    notices.listening = true;
    await cache.read(['a', 'b'], load);
    await cache.read(['a', 'b'], load);
    expect(loaded).toEqual([['a'], ['a'], ['b'], ['a', 'b']]);
  });

  it('hands out kept accounts frozen, so no request can change what the next one reads', async () => {
    const { cache, load } = fixture();
    const first = (await cache.read(['a'], load)).get('a')!;
    expect(Object.isFrozen(first) && Object.isFrozen(first.emails)).toBe(true);
    expect(() => (first.emails as string[]).push('x@example.org')).toThrow(TypeError);
  });
});
