import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { entities } from '../../src/entities';
import { migrate, openDatabase, schemaDrift } from '../../src/infra/database/orm';
import { sdlSchema } from '../../src/graphql/resolvers';
import { schemaSdl } from '../../src/graphql/schema';
import { signUp } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { createTestDatabase } from '../support/database';
import { call } from '../support/http';
import { eventually } from '../support/eventually';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

describe('health', () => {
  it('answers /healthz and /readyz with the state of the database and object store', async () => {
    expect((await call(app.url, '/healthz')).body).toEqual({ status: 'ok' });
    expect((await call(app.url, '/readyz')).body).toEqual({ status: 'ready', database: 'ok', objectStore: 'ok' });
  });
});

describe('requests', () => {
  it('gives every response a request id, keeping a sane incoming one', async () => {
    expect((await call(app.url, '/healthz')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      (await call(app.url, '/healthz', { headers: { 'x-request-id': 'trace-42' } })).headers.get('x-request-id'),
    ).toBe('trace-42');
    expect(
      (await call(app.url, '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } })).headers.get(
        'x-request-id',
      ),
    ).not.toBe('bad id with spaces');
  });

  it('reports the SQL statements a request cost', async () => {
    const alice = await signUp(app);
    const reply = await call(app.url, '/auth/user', { token: alice.token });
    expect(Number(reply.headers.get('x-sql-statements'))).toBe(1);
  });

  it('answers CORS preflights for browser clients', async () => {
    const reply = await call(app.url, '/auth/user', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.org', 'access-control-request-method': 'PUT' },
    });
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-headers')).toMatch(/x-tidepool-session-token/);
    expect(reply.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('code and schema agree', () => {
  it('has schema.graphql emitted from the current resolvers (run npm run schema:emit)', async () => {
    const committed = fs.readFileSync(path.join(__dirname, '../../schema.graphql'), 'utf8');
    expect(schemaSdl(await sdlSchema())).toBe(committed);
  });

  it('has migrations that produce exactly the entities (run npm run migration:create)', async () => {
    const database = await createTestDatabase();
    const orm = await openDatabase(database.url, entities, 1);
    try {
      expect(await migrate(orm)).toEqual([]);
      expect(await schemaDrift(orm)).toBe('');
    } finally {
      await orm.close();
      await database.release();
    }
  });
});

/** Connections to the test database other than the one asking. */
async function otherConnections(): Promise<number> {
  const [row] = await app.database.query(
    'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  );
  return row.n;
}

describe('graceful shutdown', () => {
  it('finishes a request already in flight, stops listening and closes the database pool', async () => {
    const alice = await signUp(app);
    const { port } = new URL(app.url);
    const body = JSON.stringify({ updates: { termsAccepted: '2025-05-05T05:05:05Z' } });
    let request!: http.ClientRequest;
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request = http.request(
        {
          port,
          method: 'PUT',
          path: '/auth/user',
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            'x-tidepool-session-token': alice.token,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      request.on('error', reject);
      request.write(body.slice(0, 10));
    });
    await new Promise((resolve) => request.once('socket', (socket) => socket.once('connect', resolve)));
    await eventually(async () => (await otherConnections()) > 0, 'the service holds database connections');
    const closing = app.service.close();
    // The rest of the body arrives only once the service has stopped taking connections.
    await eventually(
      () =>
        fetch(`${app.url}/healthz`).then(
          () => false,
          () => true,
        ),
      'the service stops listening',
    );
    request.end(body.slice(10));
    const reply = await response;
    await closing;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.text).termsAccepted).toBe('2025-05-05T05:05:05.000Z');
    await expect(fetch(`${app.url}/healthz`)).rejects.toThrow();
    // The pool is closed: the server drops each backend as its socket closes, within moments.
    await eventually(async () => (await otherConnections()) === 0, 'every database connection is closed', 2_000);
    await app.restart();
    expect((await call(app.url, '/healthz')).status).toBe(200);
  });

  it('ends by its deadline, naming what it left behind, when a database connection is never given back', async () => {
    const lines: string[] = [];
    const stuck = await startTestApp({ SHUTDOWN_TIMEOUT_MS: '300' }, { logTo: (line) => lines.push(line) });
    const pool = await stuck.service.orm.em.getConnection().getNativeClient();
    const held = await pool.connect();
    try {
      const started = Date.now();
      await stuck.service.close();
      // Closing the pool waits for the held connection, which never comes back: without a
      // deadline the service would never stop.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(lines.map((line) => JSON.parse(line).msg)).toEqual([
        'stopping: the database pool did not finish by the shutdown deadline; left behind',
      ]);
      await expect(fetch(`${stuck.url}/healthz`)).rejects.toThrow();
    } finally {
      held.release();
      await stuck.stop();
    }
  });
});
