import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { call } from '../support/http';

/**
 * What the service writes about requests stays whole and harmless whatever a caller sends: one
 * account cannot make the access log lose anyone else's entries, a request id sent by a client
 * is only a label, and a token in a path never reaches the service's log.
 */
let app: TestApp;
let server: string;
let patient: TestAccount;
let reader: TestAccount;
let attacker: TestAccount;
const lines: Record<string, any>[] = [];

beforeAll(async () => {
  app = await startTestApp({ LOG_LEVEL: 'info' }, { logTo: (line) => lines.push(JSON.parse(line)) });
  server = await serverToken(app);
  [patient, reader, attacker] = await Promise.all(['patient', 'reader', 'attacker'].map((name) => signUp(app, name)));
  const shared = await call(app.url, `/access/${patient.userid}/${reader.userid}`, {
    token: patient.token,
    json: { view: {} },
  });
  expect(shared.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await app?.stop();
});

/** The patient's access log, as the patient reads it. */
async function patientLog(): Promise<Record<string, any>[]> {
  const log = await call(app.url, `/v1/users/${patient.userid}/access_log`, { token: patient.token });
  expect(log.status).toBe(200);
  return log.body;
}

/** The reader lists the patient's datasets, as request `requestId`. */
async function readPatient(requestId: string): Promise<void> {
  const read = await call(app.url, `/v1/users/${patient.userid}/datasets`, {
    token: reader.token,
    headers: { 'x-request-id': requestId },
  });
  expect(read.status).toBe(200);
}

const USER_QUERY = 'query ($id: ID!) { user(id: $id) { userId } }';

/** Asks for a user by `id` (an id or an email address) as request `requestId`; answers the error code. */
async function askForUser(id: string, token: string, requestId: string): Promise<string> {
  const reply = await call(app.url, '/graphql', {
    json: { query: USER_QUERY, variables: { id } },
    headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId },
  });
  return reply.body.errors?.[0]?.extensions?.code;
}

/** The subjects of the access log records written by `requestId`. */
async function subjectsOf(requestId: string): Promise<string[]> {
  // The reads' records are written in the background; reading a log waits for them.
  await patientLog();
  const rows = await app.database.query('select subject_ids from access_log_records where request_id = $1', [
    requestId,
  ]);
  return rows.flatMap((row) => row.subject_ids);
}

const longEmail = (index: number) => `someone.with.a.long.address.${index}@example.org`;

describe('the access log under a flood of unknown subjects', () => {
  it('keeps every read of another account while someone asks for users by long email addresses', async () => {
    const reads = Array.from({ length: 20 }, (_, index) => `flooded-read-${index}`);
    for (const [index, requestId] of reads.entries()) {
      // Each read lands in the batch of the probes sent with it.
      const probes = [0, 1, 2].map((n) => askForUser(longEmail(index * 3 + n), attacker.token, `probe-${index}-${n}`));
      const [codes] = await Promise.all([Promise.all(probes), readPatient(requestId)]);
      expect(codes).toEqual(['FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN']);
    }
    const byReader = (await patientLog()).filter((entry) => entry.accessorUserId === reader.userid);
    expect(byReader.map((entry) => entry.requestId).sort()).toEqual([...reads].sort());
  });

  it.each([
    ['a long email address of no account', longEmail(100)],
    ['an id of no account', '0123456789'],
    ['a UUID of no account', '01234567-89ab-cdef-0123-456789abcdef'],
  ])('records %s as the unknown subject, for a person and for a server', async (_case, id) => {
    for (const [who, token, answer] of [
      ['person', attacker.token, 'FORBIDDEN'],
      ['server', server, 'NOT_FOUND'],
    ] as const) {
      const requestId = `unknown-${who}-${id.replace(/[^\w]/g, '-')}`;
      expect(await askForUser(id, token, requestId)).toBe(answer);
      expect(await subjectsOf(requestId)).toEqual(['unknown']);
    }
  });

  it('records an account asked for by its email address by the account’s id', async () => {
    expect(await askForUser(patient.email, attacker.token, 'by-email')).toBe('FORBIDDEN');
    expect(await subjectsOf('by-email')).toEqual([patient.userid]);
  });
});

/** The lines the service logged for request `requestId`, once its access line ("request") is written. */
async function linesOf(requestId: string): Promise<Record<string, any>[]> {
  await eventually(
    async () => lines.some((line) => line.requestId === requestId && line.msg === 'request'),
    `request ${requestId} is logged`,
  );
  return lines.filter((line) => line.requestId === requestId);
}

describe('the service log', () => {
  it('never holds a token, whether sent in the path, the query or a header', async () => {
    const requestId = 'token-in-path';
    const checked = await call(app.url, `/auth/token/${patient.token}?access_token=${patient.token}`, {
      token: server,
      headers: { 'x-request-id': requestId, authorization: `Bearer ${patient.token}` },
    });
    expect(checked.status).toBe(200);
    expect(checked.body.userid).toBe(patient.userid);
    const logged = await linesOf(requestId);
    expect(logged.find((line) => line.msg === 'request')).toMatchObject({
      path: '/auth/token/[redacted]',
      status: 200,
    });
    for (const token of [patient.token, server]) expect(JSON.stringify(logged)).not.toContain(token);
  });

  it('keeps the ids a path names', async () => {
    await call(app.url, `/v1/users/${patient.userid}/datasets`, {
      token: reader.token,
      headers: { 'x-request-id': 'ids-in-path' },
    });
    const [access] = (await linesOf('ids-in-path')).filter((line) => line.msg === 'request');
    expect(access!.path).toBe(`/v1/users/${patient.userid}/datasets`);
  });
});

describe('a request id sent by the client', () => {
  const idOf = async (sent: string) =>
    (await call(app.url, '/healthz', { headers: { 'x-request-id': sent } })).headers.get('x-request-id');

  it('is kept when it is 1 to 128 letters, digits and . _ : -', async () => {
    const longest = `trace:${'a'.repeat(117)}.4_2-`;
    expect(longest).toHaveLength(128);
    expect(await idOf(longest)).toBe(longest);
  });

  it.each([
    ['too long', `${'a'.repeat(129)}`],
    ['with a space', 'two words'],
    ['with a slash', 'a/b'],
    ['with a quote', 'a"b'],
    ['not ASCII', 'café'],
  ])('is replaced by an id of the service’s own when %s', async (_case, sent) => {
    const replaced = await idOf(sent);
    expect(replaced).not.toBe(sent);
    expect(replaced).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('is only a label: requests sending the same one are each in the access log', async () => {
    await Promise.all([readPatient('same-id'), readPatient('same-id'), readPatient('same-id')]);
    const entries = (await patientLog()).filter((entry) => entry.requestId === 'same-id');
    expect(entries).toHaveLength(3);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(3);
  });
});
