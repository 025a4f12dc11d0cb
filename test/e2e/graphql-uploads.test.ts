import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { logEntries, md5 } from '../support/content';
import { graphql } from '../support/http';
import { storeDrivers } from '../support/store-drivers';

let app: TestApp;
let owner: TestAccount;

/** A GraphQL multipart request (graphql-multipart-request-spec): operations, map, then the files. */
async function multipart(
  query: string,
  variables: Record<string, unknown>,
  files: Record<string, { bytes: Buffer | string; type: string; path: string }>,
  token = owner.token,
) {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query, variables }));
  form.append(
    'map',
    JSON.stringify(Object.fromEntries(Object.entries(files).map(([name, file]) => [name, [file.path]]))),
  );
  for (const [name, file] of Object.entries(files))
    form.append(name, new Blob([file.bytes], { type: file.type }), `${name}.bin`);
  const response = await fetch(`${app.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'apollo-require-preflight': 'true' },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as any };
}

const CREATE = `mutation ($userId: ID!, $file: Upload, $digest: String) {
  createBlob(input: { userId: $userId, content: $file, digestMD5: $digest }) {
    blob { id status size digestMD5 mediaType revision contentPath } } }`;

describe.each(storeDrivers())('GraphQL uploads on the %s store', (_driver, storeEnv) => {
  beforeAll(async () => {
    app = await startTestApp(await storeEnv());
    owner = await signUp(app, 'owner');
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('creates a blob from a multipart file and lists it under the user', async () => {
    const bytes = randomBytes(3000);
    const created = await multipart(
      CREATE,
      { userId: owner.userid, file: null, digest: md5(bytes) },
      { 0: { bytes, type: 'image/jpeg', path: 'variables.file' } },
    );
    expect(created.status).toBe(200);
    expect(created.body.errors).toBeUndefined();
    const blob = created.body.data.createBlob.blob;
    expect(blob).toEqual({
      id: expect.stringMatching(/^[0-9a-z]{32}$/),
      status: 'AVAILABLE',
      size: 3000,
      digestMD5: md5(bytes),
      mediaType: 'image/jpeg',
      revision: 1,
      contentPath: `/v1/blobs/${blob.id}/content`,
    });
    const download = await fetch(`${app.url}${blob.contentPath}`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);

    const listed = await graphql(
      app.url,
      'query ($id: ID!) { user(id: $id) { blobs(filter: { mediaType: ["image/jpeg"] }) { totalCount nodes { id } } } }',
      { id: owner.userid },
      owner.token,
    );
    expect(listed.body.data.user.blobs).toEqual({ totalCount: 1, nodes: [{ id: blob.id }] });
  });

  it('creates a blob without content, then adds content, then deletes it', async () => {
    const created = await graphql(
      app.url,
      'mutation ($userId: ID!) { createBlob(input: { userId: $userId, mediaType: "text/csv" }) { blob { id status revision } } }',
      { userId: owner.userid },
      owner.token,
    );
    const { id } = created.body.data.createBlob.blob;
    expect(created.body.data.createBlob.blob).toMatchObject({ status: 'CREATED', revision: 0 });
    const filled = await multipart(
      'mutation ($id: ID!, $file: Upload!) { addBlobContent(input: { id: $id, content: $file }) { blob { status revision size mediaType } } }',
      { id, file: null },
      { 0: { bytes: 'a,b\n1,2\n', type: 'text/plain', path: 'variables.file' } },
    );
    expect(filled.body.data.addBlobContent.blob).toEqual({
      status: 'AVAILABLE',
      revision: 1,
      size: 8,
      mediaType: 'text/csv',
    });
    const removed = await graphql(
      app.url,
      'mutation ($id: ID!) { deleteBlob(input: { id: $id }) { deletedBlobId } }',
      { id },
      owner.token,
    );
    expect(removed.body.data.deleteBlob).toEqual({ deletedBlobId: id });
    const gone = await graphql(app.url, 'query ($id: ID!) { blob(id: $id) { id } }', { id }, owner.token);
    expect(gone.body.data).toEqual({ blob: null });
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('refuses a mismatching digest with BAD_USER_INPUT naming digestMD5 and keeps nothing', async () => {
    const reply = await multipart(
      CREATE,
      { userId: owner.userid, file: null, digest: md5('other') },
      { 0: { bytes: 'mine', type: 'text/plain', path: 'variables.file' } },
    );
    expect(reply.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'digestMD5' });
    const listed = await graphql(
      app.url,
      'query ($id: ID!) { blobs(userId: $id, filter: { status: [CREATED, AVAILABLE] }) { nodes { id mediaType } } }',
      { id: owner.userid },
      owner.token,
    );
    expect(
      listed.body.data.blobs.nodes.filter((blob: { mediaType: string }) => blob.mediaType === 'text/plain'),
    ).toEqual([]);
  });

  it('uploads a device log and reads it back through User.deviceLogs', async () => {
    const body = JSON.stringify(logEntries(5));
    const uploaded = await multipart(
      `mutation ($userId: ID!, $file: Upload!, $digest: String!) {
        uploadDeviceLog(input: { userId: $userId, content: $file, digestMD5: $digest,
          startAt: "2024-03-01T10:00:00Z", endAt: "2024-03-01T11:00:00Z" }) { deviceLog { id size startAt endAt } } }`,
      { userId: owner.userid, file: null, digest: md5(body) },
      { log: { bytes: body, type: 'application/octet-stream', path: 'variables.file' } },
    );
    expect(uploaded.body.errors).toBeUndefined();
    expect(uploaded.body.data.uploadDeviceLog.deviceLog).toMatchObject({
      size: body.length,
      startAt: '2024-03-01T10:00:00.000Z',
      endAt: '2024-03-01T11:00:00.000Z',
    });
    const listed = await graphql(
      app.url,
      `
        query ($id: ID!) {
          user(id: $id) {
            deviceLogs(filter: { startAt: "2024-03-01T00:00:00Z", endAt: "2024-03-02T00:00:00Z" }) {
              totalCount
              nodes {
                id
              }
            }
          }
        }
      `,
      { id: owner.userid },
      owner.token,
    );
    expect(listed.body.data.user.deviceLogs).toEqual({
      totalCount: 1,
      nodes: [{ id: uploaded.body.data.uploadDeviceLog.deviceLog.id }],
    });
  });

  it('streams the file a mutation wants past an earlier file nobody reads', async () => {
    const stranger = await signUp(app, 'stranger');
    // The body carries the stranger's file first; the first mutation wants the second file.
    const reply = await multipart(
      `mutation ($mine: Upload, $theirs: Upload, $userId: ID!, $strangerId: ID!) {
        accepted: createBlob(input: { userId: $userId, content: $mine, mediaType: "application/x-mine" }) { blob { id size } }
        refused: createBlob(input: { userId: $strangerId, content: $theirs }) { blob { id } } }`,
      { userId: owner.userid, strangerId: stranger.userid, mine: null, theirs: null },
      {
        theirs: { bytes: randomBytes(500_000), type: 'text/plain', path: 'variables.theirs' },
        mine: { bytes: randomBytes(1000), type: 'text/plain', path: 'variables.mine' },
      },
    );
    expect(reply.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([
      'FORBIDDEN',
    ]);
    const mine = await graphql(
      app.url,
      'query ($id: ID!) { blobs(userId: $id, filter: { mediaType: ["application/x-mine"] }) { nodes { size } } }',
      { id: owner.userid },
      owner.token,
    );
    expect(mine.body.data.blobs.nodes).toEqual([{ size: 1000 }]);
    const theirs = await graphql(
      app.url,
      'query ($id: ID!) { blobs(userId: $id) { totalCount nodes { id } } }',
      { id: stranger.userid },
      stranger.token,
    );
    expect(theirs.body.data.blobs).toEqual({ totalCount: 0, nodes: [] });
  });

  it('refuses Upload values that are not files and malformed multipart requests', async () => {
    const inline = await graphql(app.url, CREATE, { userId: owner.userid, file: 'not a file' }, owner.token);
    expect(inline.status).toBe(400);
    expect(JSON.stringify(inline.body.errors)).toMatch(/multipart request/);
    const form = new FormData();
    form.append('map', '{}');
    const noOperations = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'apollo-require-preflight': 'true' },
      body: form,
    });
    expect(noOperations.status).toBe(400);
    const missingFile = await multipart(
      CREATE,
      { userId: owner.userid, file: null },
      { 0: { bytes: 'x', type: 'text/plain', path: 'variables.nothing' } },
    );
    expect(missingFile.status).toBe(400);
    expect(missingFile.body.errors[0].message).toMatch(/does not point at a variable/);
  });
});
