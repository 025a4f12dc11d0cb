import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { rawRequest } from '../support/content';
import { eventually } from '../support/eventually';
import { call } from '../support/http';
import { rowCount, storedKeys } from '../support/stored';

/**
 * GraphQL multipart bodies that end early: cut off before their closing boundary, or by a client
 * that goes away mid-file. The service answers 400 (or nobody, for a client gone), keeps nothing
 * of the file, lets go of its temporary file, descriptor and announcement at once, and stays up.
 * In the service, one unheard stream error ends the process; here it fails the suite.
 */

let app: TestApp;
let owner: TestAccount;

const CREATE =
  'mutation ($userId: ID!, $file: Upload) { createBlob(input: { userId: $userId, content: $file }) { blob { id } } }';

/** `operations`, `map`, then the file part `fileName` whose bytes stop after `content`: no closing boundary. */
function cutOffBody(operations: unknown, map: Record<string, string[]>, fileName: string, content: string): Buffer {
  const part = (disposition: string, value: string) =>
    `--xx\r\nContent-Disposition: form-data; ${disposition}\r\n\r\n${value}\r\n`;
  return Buffer.from(
    part('name="operations"', JSON.stringify(operations)) +
      part('name="map"', JSON.stringify(map)) +
      `--xx\r\nContent-Disposition: form-data; name="${fileName}"; filename="b"\r\n\r\n${content}`,
  );
}

function headers(token?: string): [string, string][] {
  return [
    ['content-type', 'multipart/form-data; boundary=xx'],
    ['apollo-require-preflight', 'true'],
    ...(token ? [['authorization', `Bearer ${token}`] as [string, string]] : []),
  ];
}

const incomingFolder = () => path.join(app.config.dataDir, 'objects', 'incoming');

/** Temporary files of uploads in flight (filesystem store). */
const temporaryFiles = () => (fs.existsSync(incomingFolder()) ? fs.readdirSync(incomingFolder()) : []);

/** Descriptors this process (the service runs in it) holds open on temporary upload files. */
function openTemporaryFiles(): string[] {
  return fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(incomingFolder()) ? [target] : [];
    } catch {
      return []; // closed while we looked
    }
  });
}

const pendingRows = () => rowCount(app, `pending_objects where key like 'blobs/${owner.userid}/%'`);

async function expectNothingKept(): Promise<void> {
  expect(await rowCount(app, `blobs where user_id = '${owner.userid}'`)).toBe(0);
  expect(await storedKeys(app, `blobs/${owner.userid}/`)).toEqual([]);
  expect(await pendingRows()).toBe(0);
  expect(temporaryFiles()).toEqual([]);
}

describe('GraphQL multipart bodies that end early', () => {
  beforeAll(async () => {
    app = await startTestApp();
    owner = await signUp(app, 'owner');
  });
  afterAll(async () => {
    await app?.stop();
  });

  it.each([
    ['a file the map does not name', () => ({ operations: { query: '{ __typename }' }, map: {}, token: undefined })],
    [
      'a mapped file of an anonymous createBlob',
      () => ({
        operations: { query: CREATE, variables: { userId: owner.userid, file: null } },
        map: { a: ['variables.file'] },
        token: undefined,
      }),
    ],
    [
      'an upload by its owner',
      () => ({
        operations: { query: CREATE, variables: { userId: owner.userid, file: null } },
        map: { a: ['variables.file'] },
        token: owner.token,
      }),
    ],
  ])('answers 400 to a body cut off inside %s, keeps nothing and stays up', async (_name, request) => {
    const { operations, map, token } = request();
    const answer = await rawRequest(app, '/graphql', headers(token), cutOffBody(operations, map, 'a', 'AAAA'));
    expect(answer).toMatchObject({ status: 400 });
    const { errors } = JSON.parse((answer as { text: string }).text) as { errors: { message: string }[] };
    expect(errors.map((error) => error.message)).toContainEqual(expect.stringMatching(/Unexpected end of form/));
    await expectNothingKept();
    expect((await call(app.url, '/healthz')).status).toBe(200);
  });

  it('lets go of the temporary file, its descriptor and its announcement as soon as the client goes away', async () => {
    const operations = { query: CREATE, variables: { userId: owner.userid, file: null } };
    const body = cutOffBody(operations, { a: ['variables.file'] }, 'a', 'A'.repeat(64 * 1024));
    const answer = await rawRequest(app, '/graphql', headers(owner.token), body, {
      // Announces more than it sends, so the server waits for the rest of the file.
      contentLength: body.length + 1024,
      pauseAfter: body.length,
      abort: true,
      duringPause: async () => {
        await eventually(async () => (await pendingRows()) === 1, 'the upload is announced');
        await eventually(async () => openTemporaryFiles().length === 1, 'the upload writes its temporary file');
      },
    });
    expect(answer).toBe('aborted');
    // The upload timeout is an hour: only letting go on the client's departure passes this.
    await eventually(async () => (await pendingRows()) === 0, 'the announcement is released');
    await eventually(async () => openTemporaryFiles().length === 0, 'the temporary file is closed');
    await expectNothingKept();
    expect((await call(app.url, '/healthz')).status).toBe(200);
  });

  it('answers when the files come in another order than the operation reads them', async () => {
    const operations = {
      query: `mutation ($userId: ID!, $first: Upload, $second: Upload) {
        one: createBlob(input: { userId: $userId, content: $first }) { blob { size } }
        two: createBlob(input: { userId: $userId, content: $second }) { blob { size } } }`,
      variables: { userId: owner.userid, first: null, second: null },
    };
    const part = (disposition: string, value: string) =>
      `--xx\r\nContent-Disposition: form-data; ${disposition}\r\n\r\n${value}\r\n`;
    // The second file first, big enough to fill every buffer between the socket and the parser.
    const body = Buffer.from(
      part('name="operations"', JSON.stringify(operations)) +
        part('name="map"', JSON.stringify({ 0: ['variables.first'], 1: ['variables.second'] })) +
        part('name="1"; filename="second"', 'B'.repeat(1024 * 1024)) +
        part('name="0"; filename="first"', 'A'.repeat(10)) +
        '--xx--\r\n',
    );
    const answer = await rawRequest(app, '/graphql', headers(owner.token), body);
    expect(answer).toMatchObject({ status: 200 });
    const { errors } = JSON.parse((answer as { text: string }).text) as {
      errors: { path: string[]; message: string }[];
    };
    expect(errors).toEqual([
      expect.objectContaining({ path: ['two'], message: expect.stringMatching(/in the order/) }),
    ]);
    const stored = await app.database.query(`select size from blobs where user_id = $1`, [owner.userid]);
    expect(stored).toEqual([{ size: 10 }]);
  });
});
