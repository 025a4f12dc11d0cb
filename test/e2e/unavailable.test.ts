import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createObjectStore } from '../../src/infra/object-store';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { uploadBlob } from '../support/content';
import { call, graphql } from '../support/http';

/**
 * A dependency that fails answers 503 UNAVAILABLE naming only its kind; what failed and where
 * (endpoints, addresses, paths, object keys) goes to the log with the request id. A failure
 * inside a DataLoader is such a failure too, never a refusal (403) or a silent null.
 */

let app: TestApp;
let alice: TestAccount;
let bob: TestAccount;
const logLines: Record<string, any>[] = [];

beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: 'info' }, { logTo: (line) => logLines.push(JSON.parse(line)) });
  alice = await signUp(app, 'alice');
  bob = await signUp(app, 'bob');
});
afterAll(async () => {
  await app?.stop();
});
beforeEach(() => {
  logLines.length = 0;
});

const DATABASE_REASON = 'The database is unavailable; try again shortly';

/** Runs `during` with the app's database refusing connections (its pooled ones cut), then restores it. */
async function withDatabaseDown(during: () => Promise<void>): Promise<void> {
  await app.database.setAvailable(false);
  try {
    await during();
  } finally {
    await app.database.setAvailable(true);
  }
}

/** The log lines written for one request (by its X-Request-Id), other than the access line. */
const linesOf = (requestId: string | null) =>
  logLines.filter((line) => line.requestId === requestId && line.msg !== 'request');

describe('a database failure inside a DataLoader', () => {
  it('answers 503 from the access check on REST, not 403', async () => {
    await withDatabaseDown(async () => {
      for (const path of [`/auth/user/${alice.userid}`, `/v1/users/${alice.userid}`, `/access/${alice.userid}`]) {
        const reply = await call(app.url, path, { token: bob.token });
        expect({ path, status: reply.status, body: reply.body }).toEqual({
          path,
          status: 503,
          body: { code: 503, reason: DATABASE_REASON, error: 0 },
        });
      }
    });
    // Once it is back, the same request is refused for what it is.
    expect((await call(app.url, `/auth/user/${alice.userid}`, { token: bob.token })).status).toBe(403);
  });

  it('answers UNAVAILABLE on GraphQL, never FORBIDDEN or a silent null', async () => {
    await withDatabaseDown(async () => {
      const one = await graphql(
        app.url,
        'query ($id: ID!) { user(id: $id) { userId } }',
        { id: alice.userid },
        bob.token,
      );
      expect(one.body.errors[0]).toMatchObject({ message: DATABASE_REASON, extensions: { code: 'UNAVAILABLE' } });
      // What failed goes to the log, with the request id.
      expect(linesOf(one.headers.get('x-request-id'))).toContainEqual(
        expect.objectContaining({ level: 'error', err: expect.objectContaining({ message: expect.any(String) }) }),
      );
      const many = await graphql(
        app.url,
        'query ($ids: [ID!]!) { users(ids: $ids) { userId } }',
        { ids: [alice.userid, bob.userid] },
        bob.token,
      );
      expect(many.body.errors?.[0]).toMatchObject({ message: DATABASE_REASON, extensions: { code: 'UNAVAILABLE' } });
      expect(many.body.data?.users ?? null).toBeNull();
    });
    const back = await graphql(
      app.url,
      'query ($ids: [ID!]!) { users(ids: $ids) { userId } }',
      { ids: [alice.userid, bob.userid] },
      bob.token,
    );
    expect(back.body.data.users).toEqual([null, { userId: bob.userid }]);
  });
});

describe('what a client sees of a failed dependency', () => {
  it('names the database, while the log has its error with the request id', async () => {
    await withDatabaseDown(async () => {
      const reply = await call(app.url, `/auth/user/${alice.userid}`, { token: bob.token });
      expect(reply.body.reason).toBe(DATABASE_REASON);
      const [line] = linesOf(reply.headers.get('x-request-id'));
      expect(line).toMatchObject({
        level: 'error',
        msg: 'dependency unavailable',
        err: { message: expect.any(String) },
      });
      expect(line.err.message).toMatch(/not currently accepting connections|terminat|connect/i);
    });
  });

  it('/readyz says which dependency is down, not its error', async () => {
    await withDatabaseDown(async () => {
      const ready = await call(app.url, '/readyz');
      expect({ status: ready.status, body: ready.body }).toEqual({
        status: 503,
        body: { status: 'unavailable', database: 'unavailable', objectStore: 'ok' },
      });
      const [line] = linesOf(ready.headers.get('x-request-id'));
      expect(line).toMatchObject({ level: 'warn', dependency: 'database', err: { message: expect.any(String) } });
    });
    expect((await call(app.url, '/readyz')).body).toEqual({ status: 'ready', database: 'ok', objectStore: 'ok' });
  });

  it('names the object store, never its folder or the object key', async () => {
    const uploaded = await uploadBlob(app, alice.userid, alice.token, 'kept safe');
    const root = path.join(app.config.dataDir, 'objects');
    await fsp.rename(root, `${root}.away`);
    await fsp.writeFile(root, 'not a folder');
    try {
      const refused = await uploadBlob(app, alice.userid, alice.token, 'lost');
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 503,
        body: { code: 503, reason: 'The object store is unavailable; try again shortly', error: 0 },
      });
      expect(refused.headers.get('retry-after')).toBe('5');
      const [line] = linesOf(refused.headers.get('x-request-id'));
      expect(line).toMatchObject({ level: 'error', msg: 'dependency unavailable' });
      expect(line.err.message).toContain(app.config.dataDir);
      const download = await call(app.url, `/v1/blobs/${uploaded.body.id}/content`, { token: alice.token });
      expect({ status: download.status, reason: download.body.reason }).toEqual({
        status: 503,
        reason: expect.stringMatching(/object store/),
      });
      expect(download.text).not.toContain(app.config.dataDir);
      const ready = await call(app.url, '/readyz');
      expect(ready.body).toEqual({ status: 'unavailable', database: 'ok', objectStore: 'unavailable' });
      expect(ready.text).not.toContain(app.config.dataDir);
    } finally {
      await fsp.rm(root);
      await fsp.rename(`${root}.away`, root);
    }
  });

  it('names missing content without its object key', async () => {
    const uploaded = await uploadBlob(app, alice.userid, alice.token, 'soon gone');
    const [{ object_key: key }] = await app.database.query('select object_key from blobs where id = $1', [
      uploaded.body.id,
    ]);
    await createObjectStore(app.config).delete(key as string);
    const reply = await call(app.url, `/v1/blobs/${uploaded.body.id}/content`, { token: alice.token });
    expect({ status: reply.status, body: reply.body }).toEqual({
      status: 503,
      body: { code: 503, reason: 'The stored content is missing from the object store', error: 0 },
    });
    expect(reply.text).not.toContain(key as string);
    expect(JSON.stringify(linesOf(reply.headers.get('x-request-id')))).toContain(key as string);
  });
});
