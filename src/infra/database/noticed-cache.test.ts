import { describe, expect, it } from '@jest/globals';
import { CHANGE_SETTLES_MS, NoticedCache, type NoticedCacheOptions, type Notices } from './noticed-cache';

const CHANNEL = 'probe_changed';

interface Row {
  id: string;
  username: string;
}

const account = (id: string, username = `${id}@example.org`): Row => ({ id, username });

/** A cache over a fake table whose reads it counts, with notices the test sends itself. */
function fixture(options: Partial<NoticedCacheOptions<Row>> = {}) {
  const listeners: ((payload: string) => void)[] = [];
  const connectHooks: (() => Promise<void>)[] = [];
  const notices: Notices & { listening: boolean } = {
    listening: true,
    on: (channel, listener) => {
      if (channel === CHANNEL) listeners.push(listener);
    },
    onConnect: (hook) => void connectHooks.push(hook),
  };
  let clock = 0;
  const cache = new NoticedCache<Row>(notices, { channel: CHANNEL, max: 100, now: () => clock, ...options });
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

describe('NoticedCache', () => {
  it('reads a value once and then from memory, loading only the keys it does not keep', async () => {
    const { cache, loaded, load } = fixture();
    expect([...(await cache.read(['a'], load)).keys()]).toEqual(['a']);
    const both = await cache.read(['a', 'b', 'missing'], load);
    expect([...both.keys()].sort()).toEqual(['a', 'b']);
    await cache.read(['a', 'b'], load);
    expect(loaded).toEqual([['a'], ['b', 'missing']]);
  });

  it('forgets the value a notice names, so the next read sees the change', async () => {
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

  it('reads what this instance is changing from the table alone until the change settles', async () => {
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

  it('keeps values up to the weight given, forgetting the least recently read first', async () => {
    const { cache, table, loaded, load } = fixture({ maxSize: 3, sizeOf: (row) => row.username.length });
    table.set('a', account('a', 'xx'));
    table.set('b', account('b', 'y'));
    table.set('c', account('c', 'zz'));
    await cache.read(['a'], load);
    await cache.read(['b'], load);
    await cache.read(['a', 'b'], load);
    await cache.read(['c'], load);
    await cache.read(['a', 'b', 'c'], load);
    expect(loaded).toEqual([['a'], ['b'], ['c'], ['a']]);
  });

  describe('with keys in groups (counts of a clinic under each filter)', () => {
    const grouped = () => {
      const fixed = fixture({ groupOf: (key) => key.split(' ')[0]! });
      for (const id of ['c1 x', 'c1 y', 'c2 x']) fixed.table.set(id, account(id));
      return fixed;
    };

    it('forgets every key of the group a notice names, and only those', async () => {
      const { cache, loaded, load, notify } = grouped();
      await cache.read(['c1 x', 'c1 y', 'c2 x'], load);
      notify('c1');
      await cache.read(['c1 x', 'c1 y', 'c2 x'], load);
      notify('c1 x');
      await cache.read(['c1 x', 'c1 y', 'c2 x'], load);
      expect(loaded).toEqual([
        ['c1 x', 'c1 y', 'c2 x'],
        ['c1 x', 'c1 y'],
      ]);
    });

    it('reads every key of a group this instance is changing from the table until the change settles', async () => {
      const { cache, loaded, load, advance } = grouped();
      await cache.read(['c1 x', 'c2 x'], load);
      cache.changing('c1');
      await cache.read(['c1 x', 'c1 y', 'c2 x'], load);
      await cache.read(['c1 x', 'c1 y', 'c2 x'], load);
      advance(CHANGE_SETTLES_MS);
      await cache.read(['c1 y'], load);
      await cache.read(['c1 y'], load);
      expect(loaded).toEqual([['c1 x', 'c2 x'], ['c1 x', 'c1 y'], ['c1 x', 'c1 y'], ['c1 y']]);
    });
  });
});
