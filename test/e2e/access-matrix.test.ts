import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call, graphql, type Reply } from '../support/http';
import { expiredAccessToken } from '../support/tokens';
import { md5, uploadBlob, uploadLog } from '../support/content';
import { storeDrivers, type StoreEnv } from '../support/store-drivers';

const WINDOW = { start: '2024-03-01T00:00:00Z', end: '2024-03-02T00:00:00Z' };
const WINDOW_QUERY = 'startAtTime=2024-02-01T00:00:00Z&endAtTime=2024-04-01T00:00:00Z';

/**
 * Every operation of accounts, sharing, blobs and device logs, called by every kind of caller, answers exactly the
 * status of the access rules in docs/decisions.md, and a refused request changes nothing.
 */
const CALLERS = ['anonymous', 'owner', 'viewer', 'uploader', 'custodian', 'unrelated', 'server', 'expired'] as const;
type Caller = (typeof CALLERS)[number];

interface World {
  /** A blob with content, one without, and a device log, all of the owner. */
  blobId: string;
  emptyBlobId: string;
  logId: string;
  owner: TestAccount;
  viewer: TestAccount;
  uploader: TestAccount;
  custodian: TestAccount;
  unrelated: TestAccount;
  tokens: Record<Caller, string | undefined>;
}

interface Operation {
  name: string;
  /** Changes state when allowed, so it gets a fresh world per caller. */
  writes?: boolean;
  run(world: World, token: string | undefined): Promise<Reply>;
  expected: Record<Caller, number>;
}

let app: TestApp;
let server: string;

async function makeWorld(): Promise<World> {
  const [owner, viewer, uploader, custodian, unrelated] = await Promise.all(
    ['owner', 'viewer', 'uploader', 'custodian', 'unrelated'].map((name) => signUp(app, name)),
  );
  const grant = (user: TestAccount, permissions: object) =>
    call(app.url, `/access/${owner.userid}/${user.userid}`, { token: owner.token, json: permissions });
  await Promise.all([
    grant(viewer, { view: {} }),
    grant(uploader, { upload: {} }),
    grant(custodian, { custodian: {} }),
  ]);
  const [blob, emptyBlob, log] = await Promise.all([
    uploadBlob(app, owner.userid, owner.token),
    call(app.url, `/v1/users/${owner.userid}/blobs`, {
      method: 'POST',
      token: owner.token,
      headers: { 'content-type': 'text/plain' },
    }),
    uploadLog(app, owner.userid, owner.token, WINDOW),
  ]);
  const expired = await expiredAccessToken(app, owner.userid);
  return {
    blobId: blob.body.id,
    emptyBlobId: emptyBlob.body.id,
    logId: log.body.id,
    owner,
    viewer,
    uploader,
    custodian,
    unrelated,
    tokens: {
      anonymous: undefined,
      owner: owner.token,
      viewer: viewer.token,
      uploader: uploader.token,
      custodian: custodian.token,
      unrelated: unrelated.token,
      server,
      expired,
    },
  };
}

/** The password of the account whose token `token` is, if any. */
function passwordOf(world: World, token: string | undefined): string | undefined {
  return [world.owner, world.viewer, world.uploader, world.custodian, world.unrelated].find(
    (account) => account.token === token,
  )?.password;
}

/** What an observer with full rights sees of the owner's account and sharing. */
async function snapshot(world: World) {
  const [account, members, groups, blobs, logs] = await Promise.all([
    call(app.url, `/auth/user/${world.owner.userid}`, { token: server }),
    call(app.url, `/access/${world.owner.userid}`, { token: server }),
    call(app.url, `/access/groups/${world.owner.userid}`, { token: server }),
    call(app.url, `/v1/users/${world.owner.userid}/blobs?status=created,available`, { token: server }),
    call(app.url, `/v1/users/${world.owner.userid}/device_logs?${WINDOW_QUERY}`, { token: server }),
  ]);
  return {
    status: account.status,
    account: account.body,
    members: members.body,
    groups: groups.body,
    blobs: blobs.body,
    logs: logs.body,
  };
}

const readers = {
  anonymous: 401,
  owner: 200,
  viewer: 403,
  uploader: 403,
  custodian: 200,
  unrelated: 403,
  server: 200,
  expired: 401,
};

const OPERATIONS: Operation[] = [
  {
    name: 'GET /auth/user',
    run: (_world, token) => call(app.url, '/auth/user', { token }),
    expected: {
      anonymous: 401,
      owner: 200,
      viewer: 200,
      uploader: 200,
      custodian: 200,
      unrelated: 200,
      server: 401,
      expired: 401,
    },
  },
  {
    name: 'PUT /auth/user',
    run: (_world, token) =>
      call(app.url, '/auth/user', {
        method: 'PUT',
        token,
        json: { updates: { termsAccepted: '2024-01-01T00:00:00Z' } },
      }),
    expected: {
      anonymous: 401,
      owner: 200,
      viewer: 200,
      uploader: 200,
      custodian: 200,
      unrelated: 200,
      server: 401,
      expired: 401,
    },
  },
  {
    name: 'GET /auth/user/{owner}',
    run: (world, token) => call(app.url, `/auth/user/${world.owner.userid}`, { token }),
    expected: readers,
  },
  {
    name: 'PUT /auth/user/{owner}',
    writes: true,
    run: (world, token) =>
      call(app.url, `/auth/user/${world.owner.userid}`, {
        method: 'PUT',
        token,
        // Changing emails needs the account's own current password: a custodian's proves nothing
        // about it (a stolen token can make its thief a custodian), so only the owner and servers may.
        json: { updates: { emails: [`renamed.${world.owner.email}`], currentPassword: passwordOf(world, token) } },
      }),
    expected: { ...readers, custodian: 403 },
  },
  {
    name: 'DELETE /auth/user/{owner}',
    writes: true,
    run: (world, token) =>
      call(app.url, `/auth/user/${world.owner.userid}`, {
        method: 'DELETE',
        token,
        json: token === world.owner.token ? { password: world.owner.password } : {},
      }),
    expected: {
      anonymous: 401,
      owner: 204,
      viewer: 401,
      uploader: 401,
      custodian: 204,
      unrelated: 401,
      server: 204,
      expired: 401,
    },
  },
  {
    name: 'POST /auth/user/{owner}/user',
    writes: true,
    run: (world, token) => call(app.url, `/auth/user/${world.owner.userid}/user`, { token, json: {} }),
    expected: {
      anonymous: 401,
      owner: 201,
      viewer: 403,
      uploader: 403,
      custodian: 403,
      unrelated: 403,
      server: 201,
      expired: 401,
    },
  },
  {
    name: 'GET /access/groups/{owner}',
    run: (world, token) => call(app.url, `/access/groups/${world.owner.userid}`, { token }),
    expected: readers,
  },
  {
    name: 'GET /access/{owner}',
    run: (world, token) => call(app.url, `/access/${world.owner.userid}`, { token }),
    expected: readers,
  },
  {
    name: 'GET /access/{owner}/{viewer}',
    run: (world, token) => call(app.url, `/access/${world.owner.userid}/${world.viewer.userid}`, { token }),
    expected: { ...readers, viewer: 200 },
  },
  {
    name: 'POST /access/{owner}/{unrelated} {view}',
    writes: true,
    run: (world, token) =>
      call(app.url, `/access/${world.owner.userid}/${world.unrelated.userid}`, { token, json: { view: {} } }),
    expected: readers,
  },
  {
    name: 'POST /access/{owner}/{viewer} {} (removal)',
    writes: true,
    run: (world, token) => call(app.url, `/access/${world.owner.userid}/${world.viewer.userid}`, { token, json: {} }),
    expected: { ...readers, viewer: 200 },
  },
];

/** docs/decisions.md, access rules: owners, `upload` or `custodian` holders and servers add blobs and device logs. */
const uploaders = (status: number) => ({
  ...readers,
  owner: status,
  uploader: status,
  custodian: status,
  server: status,
});
/** Device logs: whoever may read the owner's data (`view` or custodian); `upload` alone reads nothing. */
const logReaders = { ...readers, viewer: 200 };

const CONTENT_OPERATIONS: Operation[] = [
  {
    name: 'POST /v1/users/{owner}/blobs',
    writes: true,
    run: (world, token) => uploadBlob(app, world.owner.userid, token ?? ''),
    expected: uploaders(201),
  },
  {
    name: 'PUT /v1/blobs/{created blob} (adds content)',
    writes: true,
    run: (world, token) =>
      call(app.url, `/v1/blobs/${world.emptyBlobId}`, {
        method: 'PUT',
        token,
        headers: { 'content-type': 'text/plain', digest: `md5=${md5('content')}` },
        body: Buffer.from('content'),
      }),
    expected: uploaders(200),
  },
  {
    name: 'GET /v1/users/{owner}/blobs',
    run: (world, token) => call(app.url, `/v1/users/${world.owner.userid}/blobs`, { token }),
    expected: readers,
  },
  {
    name: 'GET /v1/blobs/{blob}',
    run: (world, token) => call(app.url, `/v1/blobs/${world.blobId}`, { token }),
    expected: readers,
  },
  {
    name: 'GET /v1/blobs/{blob}/content',
    run: (world, token) => call(app.url, `/v1/blobs/${world.blobId}/content`, { token }),
    expected: readers,
  },
  {
    name: 'DELETE /v1/blobs/{blob}',
    writes: true,
    run: (world, token) => call(app.url, `/v1/blobs/${world.blobId}`, { method: 'DELETE', token }),
    expected: { ...readers, owner: 204, custodian: 204, server: 204 },
  },
  {
    name: 'DELETE /v1/users/{owner}/blobs',
    writes: true,
    run: (world, token) => call(app.url, `/v1/users/${world.owner.userid}/blobs`, { method: 'DELETE', token }),
    expected: { ...readers, owner: 204, custodian: 204, server: 204 },
  },
  {
    name: 'POST /v1/users/{owner}/device_logs',
    writes: true,
    run: (world, token) => uploadLog(app, world.owner.userid, token ?? '', WINDOW),
    expected: uploaders(201),
  },
  {
    name: 'GET /v1/users/{owner}/device_logs',
    run: (world, token) => call(app.url, `/v1/users/${world.owner.userid}/device_logs?${WINDOW_QUERY}`, { token }),
    expected: logReaders,
  },
  {
    name: 'GET /v1/device_logs/{log}',
    run: (world, token) => call(app.url, `/v1/device_logs/${world.logId}`, { token }),
    expected: logReaders,
  },
  {
    // Tidepool hides a log's content from callers who may not read it: 404, not 403.
    name: 'GET /v1/device_logs/{log}/content',
    run: (world, token) => call(app.url, `/v1/device_logs/${world.logId}/content`, { token }),
    expected: { ...logReaders, uploader: 404, unrelated: 404 },
  },
];
OPERATIONS.push(...CONTENT_OPERATIONS);

/** Runs `operations` against a service on one object-store driver. */
function describeMatrix(title: string, operations: Operation[], storeEnv: StoreEnv): void {
  describe(title, () => {
    let shared: World;
    beforeAll(async () => {
      app = await startTestApp(await storeEnv());
      server = await serverToken(app);
      shared = await makeWorld();
    });
    afterAll(async () => {
      await app?.stop();
    });

    for (const operation of operations) {
      it(`${operation.name}: ${CALLERS.map((caller) => `${caller} ${operation.expected[caller]}`).join(', ')}`, async () => {
        const results: Record<string, number> = {};
        for (const caller of CALLERS) {
          const world = operation.writes && operation.expected[caller] < 400 ? await makeWorld() : shared;
          const before = operation.expected[caller] >= 400 ? await snapshot(world) : undefined;
          const reply = await operation.run(world, world.tokens[caller]);
          results[caller] = reply.status;
          if (reply.status >= 400)
            expect(reply.body).toEqual({ code: reply.status, reason: expect.any(String), error: 0 });
          if (before) expect(await snapshot(world)).toEqual(before);
        }
        expect(results).toEqual(operation.expected);
      });
    }
  });
}

// Every operation on the default store; those that touch stored bytes again on the S3 driver.
for (const [driver, storeEnv] of storeDrivers()) {
  if (driver === 'filesystem') describeMatrix('authorization matrix', OPERATIONS, storeEnv);
  else describeMatrix(`authorization matrix of stored content on the ${driver} store`, CONTENT_OPERATIONS, storeEnv);
}

/**
 * The same rules through GraphQL: each lookup and connection answers data ('OK') or null with the
 * error code REST maps to the same status; paging arguments are refused the same for every caller.
 */
const GRAPHQL_CODE: Record<number, string> = { 200: 'OK', 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 404: 'NOT_FOUND' };
const asCodes = (statuses: Record<Caller, number>) =>
  Object.fromEntries(CALLERS.map((caller) => [caller, GRAPHQL_CODE[statuses[caller]]])) as Record<Caller, string>;
/** A code for every caller; an expired token is refused at the edge before anything else. */
const everyone = (code: string) =>
  ({
    ...Object.fromEntries(CALLERS.map((caller) => [caller, code])),
    expired: 'UNAUTHENTICATED',
  }) as Record<Caller, string>;

interface GraphqlRow {
  name: string;
  query: string;
  variables: (world: World, ownerCursor: string) => Record<string, unknown>;
  expected: Record<Caller, string>;
}

const LOG_FILTER = '{ startAt: "2024-02-01T00:00:00Z", endAt: "2024-04-01T00:00:00Z" }';

const GRAPHQL_ROWS: GraphqlRow[] = [
  {
    name: 'user(id: owner)',
    query: 'query ($id: ID!) { user(id: $id) { userId } }',
    variables: (world) => ({ id: world.owner.userid }),
    expected: asCodes(readers),
  },
  {
    name: 'blob(id)',
    query: 'query ($id: ID!) { blob(id: $id) { id status } }',
    variables: (world) => ({ id: world.blobId }),
    expected: asCodes(readers),
  },
  {
    name: 'blobs(userId: owner, first: 10)',
    query: 'query ($id: ID!) { blobs(userId: $id, first: 10) { totalCount nodes { id } pageInfo { hasNextPage } } }',
    variables: (world) => ({ id: world.owner.userid }),
    expected: asCodes(readers),
  },
  {
    name: 'deviceLog(id)',
    query: 'query ($id: ID!) { deviceLog(id: $id) { id } }',
    variables: (world) => ({ id: world.logId }),
    expected: asCodes(logReaders),
  },
  {
    name: 'deviceLogs(userId: owner, filter)',
    query: `query ($id: ID!) { deviceLogs(userId: $id, filter: ${LOG_FILTER}) { totalCount nodes { id } } }`,
    variables: (world) => ({ id: world.owner.userid }),
    expected: asCodes(logReaders),
  },
  {
    name: 'groupMembers(sharerId: owner)',
    query: 'query ($id: ID!) { groupMembers(sharerId: $id, first: 10) { totalCount nodes { userId permissions } } }',
    variables: (world) => ({ id: world.owner.userid }),
    expected: asCodes(readers),
  },
  {
    name: 'accessibleGroups(userId: owner)',
    query: 'query ($id: ID!) { accessibleGroups(userId: $id) { nodes { userId } } }',
    variables: (world) => ({ id: world.owner.userid }),
    expected: asCodes(readers),
  },
  // Federation references resolve through the lookups above, so they answer exactly as those do.
  ...(
    [
      ['User', 'userId', (world: World) => world.owner.userid, readers],
      ['Blob', 'id', (world: World) => world.blobId, readers],
      ['DeviceLog', 'id', (world: World) => world.logId, logReaders],
    ] as const
  ).map(([typeName, key, id, allowed]): GraphqlRow => ({
    name: `_entities(${typeName} of owner)`,
    query: `query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on ${typeName} { ${key} } } }`,
    variables: (world) => ({ representations: [{ __typename: typeName, [key]: id(world) }] }),
    expected: asCodes(allowed),
  })),
  ...[0, 101, -1].map((first): GraphqlRow => ({
    name: `blobs(userId: owner, first: ${first})`,
    query: 'query ($id: ID!, $first: Int) { blobs(userId: $id, first: $first) { nodes { id } } }',
    variables: (world) => ({ id: world.owner.userid, first }),
    expected: everyone('BAD_USER_INPUT'),
  })),
  {
    name: 'blobs(userId: owner, after: a forged cursor)',
    query: 'query ($id: ID!) { blobs(userId: $id, after: "eyJmb3JnZWQiOnRydWV9") { nodes { id } } }',
    variables: (world) => ({ id: world.owner.userid }),
    expected: everyone('BAD_USER_INPUT'),
  },
  {
    // The owner's cursor is refused on every other list: no caller reads the owner's rows through it.
    name: "me { blobs(after: a cursor of the owner's list) }",
    query: 'query ($after: String) { me { blobs(after: $after) { nodes { id userId } } } }',
    variables: (_world, ownerCursor) => ({ after: ownerCursor }),
    expected: {
      ...everyone('BAD_USER_INPUT'),
      owner: 'OK',
      anonymous: 'UNAUTHENTICATED',
      expired: 'UNAUTHENTICATED',
      server: 'UNAUTHENTICATED',
    },
  },
  {
    name: "deviceLogs(userId: viewer, after: a cursor of the owner's list)",
    query: `query ($id: ID!, $after: String) { deviceLogs(userId: $id, filter: ${LOG_FILTER}, after: $after) { nodes { id } } }`,
    variables: (world, ownerCursor) => ({ id: world.viewer.userid, after: ownerCursor }),
    expected: everyone('BAD_USER_INPUT'),
  },
];

describe('authorization matrix through GraphQL', () => {
  let world: World;
  let ownerCursor: string;
  beforeAll(async () => {
    app = await startTestApp();
    server = await serverToken(app);
    world = await makeWorld();
    // A second blob, so the owner's first page of one has a next page and a cursor inside the list.
    await uploadBlob(app, world.owner.userid, world.owner.token);
    const page = await graphql(
      app.url,
      'query ($id: ID!) { blobs(userId: $id, first: 1) { pageInfo { hasNextPage endCursor } } }',
      { id: world.owner.userid },
      server,
    );
    expect(page.body.data.blobs.pageInfo.hasNextPage).toBe(true);
    ownerCursor = page.body.data.blobs.pageInfo.endCursor;
  });
  afterAll(async () => {
    await app?.stop();
  });

  for (const row of GRAPHQL_ROWS) {
    it(`${row.name}: ${CALLERS.map((caller) => `${caller} ${row.expected[caller]}`).join(', ')}`, async () => {
      const results: Record<string, string> = {};
      for (const caller of CALLERS) {
        const reply = await graphql(app.url, row.query, row.variables(world, ownerCursor), world.tokens[caller]);
        const error = reply.body.errors?.[0];
        results[caller] = error?.extensions?.code ?? 'OK';
        // Never a row of the owner's list to a caller refused it.
        if (error) expect(JSON.stringify(reply.body.data ?? null)).not.toContain(world.blobId);
      }
      expect(results).toEqual(row.expected);
    });
  }
});

describe('what downloads and permission sets show', () => {
  beforeAll(async () => {
    app = await startTestApp();
    server = await serverToken(app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('serves stored bytes as attachments browsers never sniff, even content uploaded as text/html', async () => {
    const owner = await signUp(app, 'owner');
    const page = '<!doctype html><script>alert(document.cookie)</script>';
    const blob = await uploadBlob(app, owner.userid, owner.token, page, { 'content-type': 'text/html' });
    expect(blob.status).toBe(201);
    const log = await uploadLog(app, owner.userid, owner.token, WINDOW);
    for (const path of [`/v1/blobs/${blob.body.id}/content`, `/v1/device_logs/${log.body.id}/content`]) {
      const reply = await call(app.url, path, { token: owner.token });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
      expect(reply.headers.get('content-disposition')).toBe('attachment');
    }
    const html = await call(app.url, `/v1/blobs/${blob.body.id}/content`, { token: owner.token });
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(html.text).toBe(page);
  });

  it('shows a custodial account’s custodian in its permission sets, the way Tidepool clients read it, not in roles', async () => {
    const parent = await signUp(app, 'parent');
    const created = await call(app.url, `/auth/user/${parent.userid}/user`, { token: parent.token, json: {} });
    const kid = created.body.userid;
    expect(created.body.roles ?? []).toEqual([]);
    const custodian = { custodian: {}, view: {}, upload: {} };
    for (const token of [parent.token, server]) {
      expect((await call(app.url, `/access/${kid}`, { token })).body).toEqual({
        [kid]: { root: {} },
        [parent.userid]: custodian,
      });
      expect((await call(app.url, `/access/${kid}/${parent.userid}`, { token })).body).toEqual(custodian);
      expect((await call(app.url, `/access/groups/${parent.userid}`, { token })).body).toEqual({
        [parent.userid]: { root: {} },
        [kid]: custodian,
      });
    }
  });
});
