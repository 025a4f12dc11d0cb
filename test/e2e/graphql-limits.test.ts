import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { call, graphql } from '../support/http';

let app: TestApp;
let alice: TestAccount;
const lines: Record<string, any>[] = [];

beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: 'info' }, { logTo: (line) => lines.push(JSON.parse(line)) });
  alice = await signUp(app, 'alice');
});
afterAll(async () => {
  await app?.stop();
});

/** Fragments that each spread the next one twice: about 1 KB, 2^levels fields once expanded. */
const fragmentExplosion = (levels: number) =>
  `query { ...F0 } ${Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join(' ')} fragment F${levels} on Query { __typename }`;

const refusal = (message: string | RegExp, code = 'QUERY_TOO_COMPLEX') => ({
  status: 400,
  body: {
    errors: [
      expect.objectContaining({
        message: expect.stringMatching(message),
        extensions: expect.objectContaining({ code, requestId: expect.any(String) }),
      }),
    ],
  },
});

describe('GraphQL request limits', () => {
  it.each([23, 30])(
    'refuses fragments spreading the next one twice, %i levels, anonymously, while /healthz answers',
    async (levels) => {
      const [explosion, health] = await Promise.all([
        graphql(app.url, fragmentExplosion(levels)),
        call(app.url, '/healthz'),
      ]);
      expect(explosion).toMatchObject(refusal(/^Query expands to more than 5000 selections/));
      expect(health.status).toBe(200);
    },
  );

  it('takes up to 100 ids, duplicates included, and refuses 101 naming the cap, before anything runs', async () => {
    const query = 'query ($ids: [ID!]!) { users(ids: $ids) { userId } }';
    // Once unmeasured: the account is then kept in the instance's memory for both measured reads.
    await graphql(app.url, query, { ids: [alice.userid] }, alice.token);
    const hundred = await graphql(app.url, query, { ids: new Array(100).fill(alice.userid) }, alice.token);
    expect(hundred.status).toBe(200);
    expect(hundred.body.data.users).toEqual(new Array(100).fill({ userId: alice.userid }));
    const one = await graphql(app.url, query, { ids: [alice.userid] }, alice.token);
    // Duplicates are folded: a hundred entries cost the SQL statements of one.
    expect(hundred.headers.get('x-sql-statements')).toBe(one.headers.get('x-sql-statements'));

    const tooMany = await graphql(app.url, query, { ids: new Array(101).fill(alice.userid) }, alice.token);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0]).toMatchObject({
      message: 'ids holds 101 entries; at most 100 are allowed',
      extensions: { field: 'ids' },
    });
    expect(tooMany.body.data).toBeUndefined();
    const literal = await graphql(
      app.url,
      `{ users(ids: ${JSON.stringify(new Array(101).fill(alice.userid))}) { userId } }`,
      {},
      alice.token,
    );
    expect(literal).toMatchObject(refusal('ids holds 101 entries; at most 100 are allowed', 'BAD_USER_INPUT'));
    expect(literal.body.errors[0].extensions.field).toBe('ids');
  });

  it('refuses the 280 KB amplification request at once, by variables or inline', async () => {
    const ids = new Array(20_000).fill(alice.userid);
    const query = 'query ($ids: [ID!]!) { users(ids: $ids) { blobs(first: 100) { nodes { id size digestMD5 } } } }';
    const byVariables = await graphql(app.url, query, { ids }, alice.token);
    expect(byVariables.status).toBe(400);
    expect(byVariables.body.errors[0].message).toBe('ids holds 20000 entries; at most 100 are allowed');
    const inline = `{ users(ids: ${JSON.stringify([...ids, ...ids.slice(0, 2_000)])}) { blobs(first: 100) { nodes { id size digestMD5 } } } }`;
    expect(inline.length).toBeGreaterThan(280_000);
    expect(await graphql(app.url, inline, {}, alice.token)).toMatchObject(
      refusal(/Document contains more tha[nt] 2000 tokens/),
    );
  });

  it('refuses a query costing more than the maximum, naming both, and runs nothing of it', async () => {
    const costly = await graphql(
      app.url,
      'query ($ids: [ID!]!) { users(ids: $ids) { blobs(first: 100) { nodes { id size status mediaType digestMD5 createdTime } } } }',
      { ids: new Array(100).fill(alice.userid) },
      alice.token,
    );
    // 100 users × 100 blobs × (the blob, its connection entry and 6 fields), and 1 per user.
    expect(costly).toMatchObject(refusal(/^Query cost 80100 exceeds the maximum of 50000$/));
    // Connections without `first` are priced at their default page of 100.
    const defaulted = await graphql(
      app.url,
      'query ($ids: [ID!]!) { users(ids: $ids) { blobs { nodes { id size status mediaType digestMD5 createdTime } } } }',
      { ids: new Array(100).fill(alice.userid) },
      alice.token,
    );
    expect(defaulted).toMatchObject(refusal(/^Query cost 80100 exceeds the maximum of 50000$/));
    const affordable = await graphql(
      app.url,
      'query ($ids: [ID!]!) { users(ids: $ids) { blobs(first: 10) { totalCount nodes { id } } } }',
      { ids: new Array(100).fill(alice.userid) },
      alice.token,
    );
    expect(affordable.status).toBe(200);
    for (const first of [0, 101, -5]) {
      const refused = await graphql(app.url, `{ me { blobs(first: ${first}) { nodes { id } } } }`, {}, alice.token);
      expect(refused).toMatchObject(refusal('first must be an integer from 1 to 100', 'BAD_USER_INPUT'));
      expect(refused.body.errors[0].extensions.field).toBe('first');
    }

    const mutation = await graphql(
      app.url,
      'mutation { updateMe(input: { termsAccepted: "2024-01-02T03:04:05Z" }) { user { sharedWith { nodes { user { blobs { nodes { id size status mediaType digestMD5 } } } } } } } }',
      {},
      alice.token,
    );
    expect(mutation).toMatchObject(refusal(/^Query cost \d+ exceeds the maximum of 50000$/));
    const me = await graphql(app.url, '{ me { termsAccepted } }', {}, alice.token);
    expect(me.body.data.me.termsAccepted).toBeNull();
  });

  it('prices nested share lists by their pages, which a probe fanned out until memory ran out', async () => {
    // Each sharedBy/sharedWith is a page of up to 100: four levels could fan out to 100^4 accounts.
    const fanOut = await graphql(
      app.url,
      '{ me { sharedBy { nodes { user { sharedWith { nodes { user { sharedWith { nodes { user { userId } } } } } } } } } } }',
      {},
      alice.token,
    );
    expect(fanOut).toMatchObject(refusal(/^Query cost \d+ exceeds the maximum of 50000$/));
  });

  it('refuses too many aliases, root fields or tokens, naming the limit', async () => {
    const fields = (count: number, field: (i: number) => string) =>
      `{ ${Array.from({ length: count }, (_, i) => field(i)).join(' ')} }`;
    const aliases = `{ me ${fields(31, (i) => `a${i}: userId`)} }`;
    expect(await graphql(app.url, aliases)).toMatchObject(refusal('Query has 31 aliases, more than 30'));
    const roots = fields(21, (i) => `r${i}: me { userId }`);
    expect(await graphql(app.url, roots, {}, alice.token)).toMatchObject(
      refusal('Operation has 21 root fields, more than 20'),
    );
    expect(
      await graphql(
        app.url,
        fields(20, (i) => `r${i}: me { userId }`),
        {},
        alice.token,
      ),
    ).toMatchObject({
      status: 200,
      body: { data: expect.objectContaining({ r19: { userId: alice.userid } }) },
    });
    const padded = `{ me { ${new Array(2100).fill('userId').join(' ')} } }`;
    expect(await graphql(app.url, padded, {}, alice.token)).toMatchObject(
      refusal(/^Syntax Error: Document contains more tha[nt] 2000 tokens. Parsing aborted.$/),
    );
  });

  it('answers a subscription over HTTP 400, pointing to WebSocket, and logs no error', async () => {
    const requestId = `sub-${Math.random().toString(36).slice(2)}`;
    const reply = await call(app.url, '/graphql', {
      json: { query: 'subscription { glucoseSummaryUpdated(userId: "x") { kind } }' },
      headers: { authorization: `Bearer ${alice.token}`, 'x-request-id': requestId },
    });
    expect(reply).toMatchObject(
      refusal('Subscriptions are served over WebSocket on /graphql with graphql-ws, not over HTTP', 'BAD_REQUEST'),
    );
    expect(reply.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    // The access line ("request") is the request's last.
    const logged = async () => lines.some((line) => line.requestId === requestId && line.msg === 'request');
    await eventually(logged, 'the access line is written', 5_000);
    const ofRequest = lines.filter((line) => line.requestId === requestId);
    expect(ofRequest).toContainEqual(expect.objectContaining({ msg: 'request', status: 400 }));
    expect(ofRequest.filter((line) => ['error', 'fatal'].includes(line.level))).toEqual([]);
  });
});
