import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/infra/logger';
import { startService, type RunningService } from '../../src/service';
import { signUp, type TestAccount } from '../support/accounts';
import { DEV_CLIENT_SECRET, SERVER_SECRET, startTestApp, type TestApp } from '../support/app';
import { addClinician, newClinic } from '../support/clinics';
import { eventually } from '../support/eventually';
import { freePort } from '../support/ports';
import { call } from '../support/http';
import { liveClient, liveSubscriptions, type LiveClient } from '../support/live';
import { realmSigningKey, signAccessToken } from '../support/tokens';

/**
 * Live summaries over WebSocket: a dashboard subscribed on one instance receives the summary an
 * upload through another instance changed (PostgreSQL NOTIFY between them), with what the
 * subscriber may see, and nothing else.
 */
let app: TestApp;
let second: RunningService;
let secondUrl: string;
let dataDir: string;
const clients: LiveClient[] = [];

const MGDL_PER_MMOL = 18.01559;
const FIVE_MINUTES = 5 * 60_000;
const HOUR = 60 * 60_000;

/** A second instance on the same database behind the same public URL, as a load balancer would have it. */
beforeAll(async () => {
  app = await startTestApp();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'islet-second-'));
  const port = await freePort();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: String(port),
    PUBLIC_URL: app.url,
    DATABASE_URL: app.database.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SERVER_SECRET,
    DEV_CLIENT_SECRET,
    DATABASE_POOL_SIZE: '2',
  });
  second = await startService(config, createLogger('silent'));
  secondUrl = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  await second?.close();
  await app?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The live subscriptions this process serves (both instances run in it). */
const liveCount = () => liveSubscriptions(app.url);

/** Starts a subscription and waits until the server follows it (so an upload after this reaches it). */
async function following(client: LiveClient, query: string, variables: Record<string, unknown>) {
  const before = await liveCount();
  const subscription = client.subscribe(query, variables);
  await eventually(async () => (await liveCount()) > before, 'the server follows the subscription');
  return subscription;
}

function connect(url: string, token?: string): LiveClient {
  const client = liveClient(url, token);
  clients.push(client);
  return client;
}

/** Uploads readings (mg/dL, one every five minutes) into a new continuous dataset. */
async function uploadReadings(account: TestAccount, mgdl: number[]): Promise<void> {
  const opened = await call(app.url, `/v1/users/${account.userid}/datasets`, {
    token: account.token,
    json: { dataSetType: 'continuous' },
  });
  expect(opened.status).toBe(201);
  // The newest at :55 of the hour before this one, so a day of readings fills whole hours (the period's unit).
  const newest = Math.floor(Date.now() / HOUR) * HOUR - FIVE_MINUTES;
  const records = mgdl.map((value, index) => ({
    type: 'cbg',
    time: new Date(newest - (mgdl.length - 1 - index) * FIVE_MINUTES).toISOString(),
    value,
    units: 'mg/dL',
    sampleInterval: FIVE_MINUTES,
  }));
  const added = await call(app.url, `/v1/datasets/${opened.body.data.id}/data`, {
    token: account.token,
    json: records,
  });
  expect(added.status).toBe(200);
}

const USER_UPDATES = `subscription ($userId: ID!) {
  glucoseSummaryUpdated(userId: $userId) {
    userId kind
    glucoseSummary(period: ONE_DAY) { cgm { period { totalRecords averageGlucoseMmol timeInTargetPercent } } }
  } }`;

const CLINIC_UPDATES = `subscription ($clinicId: ID!) {
  clinicPatientSummaryUpdated(clinicId: $clinicId) {
    clinicId userId kind
    patient { fullName glucoseSummary(period: ONE_DAY) { cgm { period { totalRecords averageGlucoseMmol } } } }
  } }`;

/** A server token, for what only servers do (adding a clinician). */
const serverLogin = async () =>
  (
    await call(app.url, '/auth/serverlogin', {
      method: 'POST',
      headers: { 'x-tidepool-server-name': 'tests', 'x-tidepool-server-secret': app.serverSecret },
    })
  ).headers.get('x-tidepool-session-token')!;

/** `patient` asks to join the clinic (granting it view) and its admin accepts. */
async function joinClinic(clinic: { id: string; shareCode: string }, admin: TestAccount, patient: TestAccount) {
  const sent = await call(app.url, `/confirm/send/invite/${patient.userid}/clinic`, {
    token: patient.token,
    json: { shareCode: clinic.shareCode, permissions: { view: {} } },
  });
  const accepted = await call(app.url, `/v1/clinics/${clinic.id}/invites/patients/${sent.body.key}`, {
    method: 'PUT',
    token: admin.token,
    json: { fullName: 'Live Patient', birthDate: '1990-01-01' },
  });
  expect(accepted.status).toBe(200);
}

/** A clinic of a new admin with a new CLINIC_MEMBER, and new accounts under these names as its patients. */
async function clinicWithPatients(...names: string[]) {
  const [admin, member, ...patients] = await Promise.all(
    ['admin', 'member', ...names].map((name) => signUp(app, name)),
  );
  const clinic = await newClinic(app, admin);
  await addClinician(app, await serverLogin(), clinic.id, member, ['CLINIC_MEMBER']);
  for (const patient of patients) await joinClinic(clinic, admin, patient);
  return { clinic, admin, member, patients: patients as [TestAccount, ...TestAccount[]] };
}

/** `owner` gives `grantee` these permissions on its data (`{}` takes them back). */
async function share(owner: TestAccount, grantee: TestAccount, permissions: Record<string, unknown>) {
  const reply = await call(app.url, `/access/${owner.userid}/${grantee.userid}`, {
    token: owner.token,
    json: permissions,
  });
  expect(reply.status).toBe(200);
}

/** The entries of the account's access log, as it reads them. */
const accessLogOf = async (account: TestAccount): Promise<Record<string, unknown>[]> =>
  (await call(app.url, `/v1/users/${account.userid}/access_log`, { token: account.token })).body;

/** Plain arithmetic: the mean of mg/dL readings in mmol/L, each rounded to five decimals as stored. */
const meanMmol = (mgdl: number[]) =>
  mgdl.map((value) => Math.round((value / MGDL_PER_MMOL) * 1e5) / 1e5).reduce((sum, value) => sum + value, 0) /
  mgdl.length;

describe('glucoseSummaryUpdated', () => {
  it('pushes the new summary to a dashboard on another instance than the upload', async () => {
    const patient = await signUp(app, 'patient');
    const dashboard = await following(connect(secondUrl, patient.token), USER_UPDATES, { userId: patient.userid });
    // A day of readings (CGM worn all day, so the time-in-range shares are kept): 180 of them in range.
    const readings = Array.from({ length: 288 }, (_, index) =>
      index % 8 < 5 ? 100 + (index % 50) : 200 + (index % 7),
    );
    await uploadReadings(patient, readings);
    const { data, errors } = await dashboard.next();
    expect(errors).toBeUndefined();
    const update = data!.glucoseSummaryUpdated;
    expect(update).toMatchObject({ userId: patient.userid, kind: 'CGM' });
    const period = update.glucoseSummary.cgm.period;
    expect(period.totalRecords).toBe(readings.length);
    expect(period.averageGlucoseMmol).toBeCloseTo(meanMmol(readings), 8);
    expect(period.timeInTargetPercent).toBeCloseTo(readings.filter((mgdl) => mgdl <= 180).length / 288, 10);
    const serving = await liveCount();
    await dashboard.stop();
    // The server lets go of a subscription the client completes.
    await eventually(async () => (await liveCount()) === serving - 1, 'the server stops following it');
  });

  it('refuses to follow an account the caller may not read (FORBIDDEN), and lets it once shared', async () => {
    const [patient, stranger] = await Promise.all([signUp(app, 'patient'), signUp(app, 'stranger')]);
    const live = connect(app.url, stranger.token);
    const refused = await live.subscribe(USER_UPDATES, { userId: patient.userid }).next();
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    await share(patient, stranger, { view: {} });
    const dashboard = await following(live, USER_UPDATES, { userId: patient.userid });
    await uploadReadings(patient, [180]);
    const { data } = await dashboard.next();
    expect(data!.glucoseSummaryUpdated.glucoseSummary.cgm.period.totalRecords).toBe(1);
    await dashboard.stop();
  });
});

describe('clinicPatientSummaryUpdated', () => {
  it('pushes changes of the clinic’s patients to its clinicians, and only theirs', async () => {
    const {
      clinic,
      member,
      patients: [patient],
    } = await clinicWithPatients('patient');
    const other = await signUp(app, 'other');

    const outsider = await connect(secondUrl, other.token).subscribe(CLINIC_UPDATES, { clinicId: clinic.id }).next();
    expect(outsider.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const dashboard = await following(connect(secondUrl, member.token), CLINIC_UPDATES, { clinicId: clinic.id });
    // A user outside the clinic uploads first: its change must not reach the clinic.
    await uploadReadings(other, [100, 100]);
    await uploadReadings(patient, [100, 120, 140]);
    const { data, errors } = await dashboard.next();
    expect(errors).toBeUndefined();
    expect(data!.clinicPatientSummaryUpdated).toMatchObject({
      clinicId: clinic.id,
      userId: patient.userid,
      kind: 'CGM',
    });
    const { patient: record } = data!.clinicPatientSummaryUpdated;
    expect(record.fullName).toBe('Live Patient');
    expect(record.glucoseSummary.cgm.period.totalRecords).toBe(3);
    expect(record.glucoseSummary.cgm.period.averageGlucoseMmol).toBeCloseTo(meanMmol([100, 120, 140]), 8);
    await dashboard.stop();
  });
});

describe('access revoked while following', () => {
  /** The subscription's next result is its end: FORBIDDEN, no data, and the server no longer follows it. */
  async function endsForbidden(subscription: { next: () => Promise<Record<string, any>> }, serving: number) {
    const ended = await subscription.next();
    expect(ended.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(ended.data).toBeUndefined();
    await eventually(async () => (await liveCount()) === serving - 1, 'the server stops following it');
  }

  it('ends a subscription with FORBIDDEN at the next change once the share is revoked', async () => {
    const [patient, viewer] = await Promise.all([signUp(app, 'sharer'), signUp(app, 'viewer')]);
    await share(patient, viewer, { view: {} });
    const live = connect(secondUrl, viewer.token);
    const updates = await following(live, USER_UPDATES, { userId: patient.userid });
    await uploadReadings(patient, [120]);
    expect((await updates.next()).data!.glucoseSummaryUpdated.userId).toBe(patient.userid);
    await share(patient, viewer, {});
    const serving = await liveCount();
    await uploadReadings(patient, [130]);
    await endsForbidden(updates, serving);
    // The patient's access log shows the viewer following, then refused.
    await eventually(async () => {
      const viewers = (await accessLogOf(patient)).filter((entry) => entry.accessorUserId === viewer.userid);
      return ['allowed', 'refused'].every((outcome) =>
        viewers.some((entry) => entry.operation === 'glucoseSummaryUpdated' && entry.outcome === outcome),
      );
    }, 'the access log shows the subscription allowed, then refused');
    // Only that subscription ends: the connection serves the viewer's own account still.
    const own = await following(live, USER_UPDATES, { userId: viewer.userid });
    await uploadReadings(viewer, [140]);
    expect((await own.next()).data!.glucoseSummaryUpdated.userId).toBe(viewer.userid);
    await own.stop();
  });

  it('ends what a clinician followed through a clinic once the patient, then the clinician, leaves it', async () => {
    const {
      clinic,
      admin,
      member,
      patients: [patient, other],
    } = await clinicWithPatients('leaving', 'staying');
    const live = connect(app.url, member.token);
    const patientUpdates = await following(live, USER_UPDATES, { userId: patient.userid });
    const clinicUpdates = await following(live, CLINIC_UPDATES, { clinicId: clinic.id });
    await uploadReadings(patient, [120]);
    expect((await patientUpdates.next()).data!.glucoseSummaryUpdated.userId).toBe(patient.userid);
    expect((await clinicUpdates.next()).data!.clinicPatientSummaryUpdated.userId).toBe(patient.userid);
    // Reading the patient's record for the event is on the patient's access log, through the clinic.
    await eventually(
      async () =>
        (await accessLogOf(patient)).some(
          (entry) =>
            entry.accessorUserId === member.userid &&
            entry.operation === 'clinicPatientSummaryUpdated' &&
            entry.clinicId === clinic.id,
        ),
      'the access log shows the clinician reading the patient’s record',
    );

    const removePatient = `/v1/clinics/${clinic.id}/patients/${patient.userid}`;
    expect((await call(app.url, removePatient, { method: 'DELETE', token: admin.token })).status).toBe(204);
    let serving = await liveCount();
    await uploadReadings(patient, [130]);
    await endsForbidden(patientUpdates, serving);
    // The clinic's dashboard stays, without the patient who left: its next change is the other patient's.
    await uploadReadings(other, [140]);
    expect((await clinicUpdates.next()).data!.clinicPatientSummaryUpdated.userId).toBe(other.userid);

    const removeMember = `/v1/clinics/${clinic.id}/clinicians/${member.userid}`;
    expect((await call(app.url, removeMember, { method: 'DELETE', token: admin.token })).status).toBe(200);
    serving = await liveCount();
    await uploadReadings(other, [150]);
    await endsForbidden(clinicUpdates, serving);
  });
});

describe('the WebSocket transport', () => {
  it('closes a connection without a usable token with 4401', async () => {
    expect(await connect(app.url).closed).toMatchObject({ code: 4401 });
    expect(await connect(app.url, 'not-a-token').closed).toMatchObject({ code: 4401 });
  });

  it('closes the connection (4401) when its token expires', async () => {
    const account = await signUp(app, 'expiring');
    const key = await realmSigningKey(app, 'dev1');
    const now = Math.floor(Date.now() / 1000);
    const token = await signAccessToken(key, {
      iss: `${app.url}/realms/dev1`,
      sub: account.userid,
      sid: 'live-session',
      exp: now + 2,
    });
    const live = connect(app.url, token);
    const subscription = live.subscribe(USER_UPDATES, { userId: account.userid });
    expect(await live.closed).toEqual({ code: 4401, reason: 'Token expired' });
    await expect(subscription.next()).rejects.toBeDefined();
  });

  it('ends a subscription (4401) when its session is logged out, saying so instead of the next event', async () => {
    const patient = await signUp(app, 'leaving');
    const live = connect(app.url, patient.token);
    const updates = await following(live, USER_UPDATES, { userId: patient.userid });
    expect((await call(app.url, '/auth/logout', { method: 'POST', token: patient.token })).status).toBe(200);
    const login = await call(app.url, '/auth/login', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${patient.email}:${patient.password}`).toString('base64')}` },
    });
    await uploadReadings({ ...patient, token: login.headers.get('x-tidepool-session-token')! }, [120]);
    const ended = await updates.next();
    expect(ended.errors?.[0]).toMatchObject({ extensions: { code: 'UNAUTHENTICATED' } });
    expect(ended.data).toBeUndefined();
    expect(await live.closed).toEqual({ code: 4401, reason: 'Session ended' });
  });

  it('serves only subscriptions, within the limits of POST /graphql', async () => {
    const account = await signUp(app, 'limits');
    const live = connect(app.url, account.token);
    const query = await live.subscribe('{ me { userId } }').next();
    expect(query.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    expect(query.errors?.[0]?.message).toMatch(/POST \/graphql/);
    const unknown = await live.subscribe('subscription { nothingHere }').next();
    expect(unknown.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const two = await live
      .subscribe(
        `subscription { a: glucoseSummaryUpdated(userId: "x") { kind } b: glucoseSummaryUpdated(userId: "y") { kind } }`,
      )
      .next();
    expect(two.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const long = await live
      .subscribe(`subscription { glucoseSummaryUpdated(userId: "x") { ${'kind '.repeat(2_500)} } }`)
      .next();
    expect(long.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('holds at most 20 subscriptions per connection', async () => {
    const account = await signUp(app, 'many');
    const live = connect(app.url, account.token);
    const subscriptions = Array.from({ length: 20 }, () => live.subscribe(USER_UPDATES, { userId: account.userid }));
    const extra = await live.subscribe(USER_UPDATES, { userId: account.userid }).next();
    expect(extra.errors?.[0]?.message).toMatch(/At most 20 subscriptions/);
    await Promise.all(subscriptions.map((subscription) => subscription.stop()));
  });
});
