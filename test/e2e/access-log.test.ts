import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { md5, uploadBlob, uploadLog } from '../support/content';
import { call, graphql } from '../support/http';
import { AccessLogService } from '../../src/domains/access-log/access-log.service';
import { AccessPolicy } from '../../src/domains/permissions/access-policy';

/**
 * The access log over HTTP: what a clinician (or anyone but the account) reads or changes of a
 * patient's data lands in the patient's log, refusals too; only the patient, its custodians,
 * the clinic's admins (for the clinic's part) and servers read it.
 */
let app: TestApp;
let server: string;
let admin: TestAccount;
let member: TestAccount;
let patient: TestAccount;
let clinicId: string;

const WINDOW = { start: '2024-03-01T00:00:00Z', end: '2024-03-02T00:00:00Z' };
const DEVICE_LOGS = `/device_logs?startAtTime=${WINDOW.start}&endAtTime=2024-03-03T00:00:00Z`;

const as = (token: string, path: string, init: Parameters<typeof call>[2] = {}) =>
  call(app.url, path, { token, ...init });

const logOf = (userId: string, token: string, query = '') => as(token, `/v1/users/${userId}/access_log${query}`);

const ENTRY = 'id at userId accessorUserId accessorName clinicId operation objectIds outcome';
const USER_LOG = `query ($id: ID!, $first: Int, $after: String, $filter: AccessLogFilter) {
  user(id: $id) { accessLog(first: $first, after: $after, filter: $filter) {
    nodes { ${ENTRY} } pageInfo { hasNextPage endCursor } totalCount } } }`;

type Entry = Record<string, any>;

async function restEntries(userId: string, token = patient.token): Promise<Entry[]> {
  const log = await logOf(userId, token);
  expect(log.status).toBe(200);
  return log.body;
}

beforeAll(async () => {
  app = await startTestApp();
  server = await serverToken(app);
  [admin, member, patient] = await Promise.all(['admin', 'member', 'patient'].map((name) => signUp(app, name)));
  const clinic = await as(admin.token, '/v1/clinics', {
    json: { name: 'Audited Clinic', preferredBgUnits: 'mg/dL', phoneNumbers: [{ number: '555-0199' }] },
  });
  clinicId = clinic.body.id;
  const added = await as(server, `/v1/clinics/${clinicId}/clinicians`, {
    json: { id: member.userid, email: member.email, roles: ['CLINIC_MEMBER'] },
  });
  expect(added.status).toBe(200);
  const sent = await as(patient.token, `/confirm/send/invite/${patient.userid}/clinic`, {
    json: { shareCode: clinic.body.shareCode, permissions: { view: {}, upload: {} } },
  });
  expect(sent.status).toBe(200);
  const accepted = await as(member.token, `/v1/clinics/${clinicId}/invites/patients/${sent.body.key}`, {
    method: 'PUT',
    json: { fullName: 'Audited Patient', birthDate: '2000-01-01' },
  });
  expect(accepted.status).toBe(200);
  expect((await uploadLog(app, patient.userid, patient.token, WINDOW)).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe('the access log', () => {
  it('shows a clinician reading a patient’s data, over REST and GraphQL, named through the clinic', async () => {
    expect((await as(member.token, `/v1/users/${patient.userid}${DEVICE_LOGS}`)).status).toBe(200);
    const query = `query ($id: ID!) { deviceLogs(userId: $id, filter: { startAt: "${WINDOW.start}", endAt: "2024-03-03T00:00:00Z" }) { nodes { id } } }`;
    const read = await graphql(app.url, query, { id: patient.userid }, member.token);
    expect(read.body.errors).toBeUndefined();

    const entries = await restEntries(patient.userid);
    const byMember = entries.filter((entry) => entry.accessorUserId === member.userid);
    expect(byMember).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          userId: patient.userid,
          accessorName: member.email,
          clinicId,
          operation: 'GET /v1/users/:userId/device_logs',
          outcome: 'allowed',
          time: expect.any(String),
        }),
        expect.objectContaining({ operation: 'deviceLogs', clinicId, outcome: 'allowed' }),
      ]),
    );
    const viaGraphql = await graphql(app.url, USER_LOG, { id: patient.userid }, patient.token);
    expect(viaGraphql.body.errors).toBeUndefined();
    expect(viaGraphql.body.data.user.accessLog.nodes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ accessorUserId: member.userid, operation: 'deviceLogs', outcome: 'ALLOWED' }),
      ]),
    );
  });

  it('records a refused attempt as refused, without the stranger’s name', async () => {
    const stranger = await signUp(app, 'stranger');
    const attempt = await graphql(
      app.url,
      'query ($id: ID!) { user(id: $id) { userId } }',
      { id: patient.userid },
      stranger.token,
    );
    expect(attempt.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const refused = (await restEntries(patient.userid)).filter((entry) => entry.accessorUserId === stranger.userid);
    expect(refused).toEqual([
      expect.objectContaining({ operation: 'user', outcome: 'refused', accessorName: null, clinicId: null }),
    ]);
    const filtered = await logOf(patient.userid, patient.token, '?outcome=refused');
    expect(filtered.body.every((entry: Entry) => entry.outcome === 'refused')).toBe(true);
  });

  it('is read by nobody else: not a stranger, not the clinician; a server token reads it', async () => {
    const stranger = await signUp(app, 'snoop');
    expect((await logOf(patient.userid, stranger.token)).status).toBe(403);
    expect((await logOf(patient.userid, member.token)).status).toBe(403);
    const asClinician = await graphql(app.url, USER_LOG, { id: patient.userid }, member.token);
    expect(asClinician.body.data.user).toBeNull();
    expect(asClinician.body.errors[0].extensions.code).toBe('FORBIDDEN');
    // The clinician's own log holds nothing of the patient's.
    const own = await restEntries(member.userid, member.token);
    expect(own.filter((entry) => entry.userId === patient.userid)).toEqual([]);

    const asServer = await restEntries(patient.userid, server);
    expect(asServer.some((entry) => entry.accessorUserId === member.userid)).toBe(true);
    // Servers see every accessor's name, refused ones included.
    const snooping = asServer.find((entry) => entry.accessorUserId === stranger.userid);
    expect(snooping).toEqual(expect.objectContaining({ outcome: 'refused', accessorName: stranger.email }));
  });

  it('gives a clinic admin what the clinic’s clinicians did through it, and nobody else', async () => {
    const query = `query ($id: ID!) { clinic(id: $id) { accessLog { nodes { ${ENTRY} } } } }`;
    const asAdmin = await graphql(app.url, query, { id: clinicId }, admin.token);
    expect(asAdmin.body.errors).toBeUndefined();
    const nodes: Entry[] = asAdmin.body.data.clinic.accessLog.nodes;
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.every((entry) => entry.clinicId === clinicId)).toBe(true);
    expect(nodes.some((entry) => entry.accessorUserId === member.userid)).toBe(true);
    const asMember = await graphql(app.url, query, { id: clinicId }, member.token);
    expect(asMember.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('keeps a change and its entry together: a change that rolls back leaves no entry', async () => {
    const creations = async () =>
      (await restEntries(patient.userid)).filter((entry) => entry.operation === 'POST /v1/users/:userId/blobs');
    await app.database.query(`create function refuse_blobs() returns trigger language plpgsql as $$
      begin raise exception 'refused for the test'; end $$`);
    await app.database.query(
      'create trigger refuse_blobs before insert on blobs for each row execute function refuse_blobs()',
    );
    try {
      // Straight fetch: the failure is made here, and no API description declares it.
      const failed = await fetch(`${app.url}/v1/users/${patient.userid}/blobs`, {
        method: 'POST',
        headers: {
          'x-tidepool-session-token': member.token,
          'content-type': 'text/plain',
          digest: `md5=${md5('rolled back')}`,
        },
        body: 'rolled back',
      });
      expect(failed.status).toBe(500);
    } finally {
      await app.database.query('drop trigger refuse_blobs on blobs; drop function refuse_blobs()');
    }
    expect(await creations()).toEqual([]);

    const created = await uploadBlob(app, patient.userid, member.token);
    expect(created.status).toBe(201);
    expect(await creations()).toEqual([
      expect.objectContaining({ accessorUserId: member.userid, outcome: 'allowed', clinicId }),
    ]);
  });

  it('keeps an entry when the accessor’s account is deleted, with its id only', async () => {
    const visitor = await signUp(app, 'visitor');
    expect(
      (await as(patient.token, `/access/${patient.userid}/${visitor.userid}`, { json: { view: {} } })).status,
    ).toBe(200);
    expect((await as(visitor.token, `/v1/users/${patient.userid}${DEVICE_LOGS}`)).status).toBe(200);
    const deleted = await as(visitor.token, `/v1/users/${visitor.userid}`, {
      method: 'DELETE',
      json: { password: visitor.password },
    });
    expect(deleted.status).toBe(204);
    const kept = (await restEntries(patient.userid)).filter((entry) => entry.accessorUserId === visitor.userid);
    expect(kept).toEqual([expect.objectContaining({ outcome: 'allowed', accessorName: null, clinicId: null })]);
  });

  it('lists newest first, in pages whose cursors stay put while entries arrive', async () => {
    const all = (await graphql(app.url, USER_LOG, { id: patient.userid, first: 100 }, patient.token)).body.data.user
      .accessLog;
    const ids = all.nodes.map((entry: Entry) => Number(entry.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(all.totalCount).toBe(ids.length);

    const first = (await graphql(app.url, USER_LOG, { id: patient.userid, first: 2 }, patient.token)).body.data.user
      .accessLog;
    expect(first.nodes.map((entry: Entry) => Number(entry.id))).toEqual(ids.slice(0, 2));
    expect(first.pageInfo.hasNextPage).toBe(true);
    // A new entry arrives; the next page continues where the first ended.
    expect((await as(member.token, `/v1/users/${patient.userid}${DEVICE_LOGS}`)).status).toBe(200);
    const next = (
      await graphql(app.url, USER_LOG, { id: patient.userid, first: 2, after: first.pageInfo.endCursor }, patient.token)
    ).body.data.user.accessLog;
    expect(next.nodes.map((entry: Entry) => Number(entry.id))).toEqual(ids.slice(2, 4));

    const restPage = await logOf(patient.userid, patient.token, '?page=1&size=2');
    expect(restPage.status).toBe(200);
    expect(restPage.body.map((entry: Entry) => Number(entry.id))).toEqual(ids.slice(1, 3));
  });

  it('loses entries only to the retention sweep, once they are older than the retention', async () => {
    await app.database.query(
      `with record as (
         insert into access_log_records (at, actor_user_id, actor_is_server, client_id, clinic_id, operation, outcome, request_id, subject_ids, object_ids)
         values (now() - interval '7 years', null, true, 'bench', null, 'user', 'ALLOWED', 'long-ago', array[$1::text], array['{}'])
         returning at)
       insert into access_log_hours (subject_id, hour) select $1::text, access_log_hour(at) from record`,
      [patient.userid],
    );
    const before = await restEntries(patient.userid, server);
    expect(before.some((entry) => entry.requestId === 'long-ago')).toBe(true);
    // The sweep the service runs every hour, run now.
    const log = new AccessLogService(
      new AccessPolicy(),
      async () => undefined,
      async () => new Map(),
    );
    expect(app.config.accessLogRetentionDays).toBe(2192);
    expect(await log.sweep({ em: app.service.orm.em.fork() }, app.config.accessLogRetentionDays)).toBe(1);
    const after = await restEntries(patient.userid, server);
    expect(after.some((entry) => entry.requestId === 'long-ago')).toBe(false);
    expect(after.length).toBeGreaterThanOrEqual(before.length - 1);
  });

  it('refuses bad parameters with a 400 naming them', async () => {
    const bad = await logOf(patient.userid, patient.token, '?outcome=maybe');
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toMatch(/outcome/);
    expect((await logOf(patient.userid, patient.token, '?startAt=yesterday')).body.reason).toMatch(/startAt/);
    const cursor = await graphql(app.url, USER_LOG, { id: patient.userid, after: 'nope' }, patient.token);
    expect(cursor.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
