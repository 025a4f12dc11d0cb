import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { eventually } from '../../../test/support/eventually';
import { createLogger } from '../logger';
import { DatabaseEvents } from './events';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
});
afterAll(async () => {
  await database?.release();
});

/** The listener's sessions: each DatabaseEvents names itself so the test finds its connection. */
async function listenerSessions(name: string): Promise<number> {
  const [row] = await database.query('select count(*)::int as n from pg_stat_activity where application_name = $1', [
    name,
  ]);
  return row!.n as number;
}

const cut = (name: string) =>
  database.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [name]);

/** A promise (`wait`) that resolves when `release` is called. */
function gate(): { wait: Promise<void>; release: () => void } {
  let release = () => undefined as void;
  const wait = new Promise<void>((resolve) => (release = resolve));
  return { wait, release };
}

describe('DatabaseEvents', () => {
  it('delivers notifications, and again after its connection was cut, having called onConnect again', async () => {
    const name = 'events-reconnect';
    const events = new DatabaseEvents(`${database.url}?application_name=${name}`, createLogger('silent'));
    const heard: string[] = [];
    let connects = 0;
    // Whether it claimed to be listening while each onConnect hook ran (the hooks reload what may have been missed).
    const listeningDuringHooks: boolean[] = [];
    events.on('probe', (payload) => heard.push(payload));
    events.onConnect(async () => {
      connects += 1;
      listeningDuringHooks.push(events.listening);
    });
    expect(events.listening).toBe(false);
    await events.start();
    try {
      expect(events.listening).toBe(true);
      await database.query(`select pg_notify('probe', 'before')`);
      await eventually(async () => heard.includes('before'), 'the first notification arrives');
      await cut(name);
      await eventually(async () => connects === 2 && (await listenerSessions(name)) === 1, 'it reconnects once');
      await database.query(`select pg_notify('probe', 'after')`);
      await eventually(async () => heard.includes('after'), 'a notification after the cut arrives');
      expect(events.listening).toBe(true);
      expect(listeningDuringHooks).toEqual([false, false]);
    } finally {
      await events.close();
    }
    expect(events.listening).toBe(false);
    await eventually(async () => (await listenerSessions(name)) === 0, 'closing ends its connection');
  });

  it('leaves no connection open when closed while a reconnection is still connecting', async () => {
    const name = 'events-close-midway';
    const proxy = await holdingProxy(new URL(database.url));
    const url = new URL(database.url);
    url.port = String(proxy.port);
    url.searchParams.set('application_name', name);
    const events = new DatabaseEvents(url.toString(), createLogger('silent'));
    events.on('probe', () => undefined);
    await events.start();
    try {
      const held = proxy.holdNext();
      await cut(name);
      await held.arrived;
      await events.close();
      held.release();
      // The held connection now reaches the server: the listener must end it rather than listen
      // (with the race, it stayed open for good and this waits until the test times out).
      await held.closed;
      await eventually(async () => (await listenerSessions(name)) === 0, 'the listener session is gone', 2_000);
    } finally {
      await events.close();
      proxy.close();
    }
  });
});

/**
 * A TCP relay to PostgreSQL that can hold the next connection before relaying it, so a test can
 * act while a client is still connecting.
 */
async function holdingProxy(target: URL) {
  let hold: { arrived: () => void; released: Promise<void>; closed: () => void } | undefined;
  const sockets = new Set<net.Socket>();
  const server = net.createServer(async (socket) => {
    sockets.add(socket);
    socket.pause();
    const held = hold;
    hold = undefined;
    if (held) {
      held.arrived();
      socket.once('close', held.closed);
      await held.released;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(upstream);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    /** Holds the next connection until released; `closed` settles when its client ends it. */
    holdNext() {
      const arrival = gate();
      const release = gate();
      const closing = gate();
      hold = { arrived: arrival.release, released: release.wait, closed: closing.release };
      return { arrived: arrival.wait, release: release.release, closed: closing.wait };
    },
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
