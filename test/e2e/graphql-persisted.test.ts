import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';

let app: TestApp;
let alice: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  alice = await signUp(app, 'alice');
});
afterAll(async () => {
  await app?.stop();
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** An automatic persisted query request: the hash always, the query text only when registering. */
const persisted = (query: string, { withText }: { withText: boolean }, variables: Record<string, unknown> = {}) =>
  call(app.url, '/graphql', {
    token: alice.token,
    json: {
      ...(withText ? { query } : {}),
      variables,
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) } },
    },
  });

const codeOf = (reply: { body: { errors?: { extensions: { code: string } }[] } }) =>
  reply.body.errors?.[0].extensions.code;

describe('automatic persisted queries', () => {
  it('answer a hash alone once the query was registered with it', async () => {
    const query = '{ me { userId } }';
    expect(codeOf(await persisted(query, { withText: false }))).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await persisted(query, { withText: true })).body).toEqual({ data: { me: { userId: alice.userid } } });
    expect((await persisted(query, { withText: false })).body).toEqual({ data: { me: { userId: alice.userid } } });
  });

  it('refuse a query whose text does not match its hash', async () => {
    const reply = await call(app.url, '/graphql', {
      token: alice.token,
      json: { query: '{ me { userId } }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ x }') } } },
    });
    expect(reply.status).toBe(400);
  });

  it('keep the request limits for persisted documents: a costly one is refused by hash too, and runs nothing', async () => {
    const query =
      'query ($ids: [ID!]!) { users(ids: $ids) { sharedBy { nodes { user { sharedWith { nodes { userId } } } } } } }';
    const variables = { ids: new Array(100).fill(alice.userid) };
    const registering = await persisted(query, { withText: true }, variables);
    expect(registering.status).toBe(400);
    expect(codeOf(registering)).toBe('QUERY_TOO_COMPLEX');
    const byHash = await persisted(query, { withText: false }, variables);
    expect(byHash.body.data).toBeUndefined();
    expect(['QUERY_TOO_COMPLEX', 'PERSISTED_QUERY_NOT_FOUND']).toContain(codeOf(byHash));
    // Registered under cheap variables, the same document is still priced by the variables of each request.
    expect((await persisted(query, { withText: true }, { ids: [alice.userid] })).status).toBe(200);
    const costlyByHash = await persisted(query, { withText: false }, variables);
    expect(costlyByHash.status).toBe(400);
    expect(codeOf(costlyByHash)).toBe('QUERY_TOO_COMPLEX');
  });
});
