import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { addClinician, joinClinic, newClinic } from '../support/clinics';
import { eventually } from '../support/eventually';
import { call, graphql } from '../support/http';
import { freePort } from '../support/ports';

/**
 * Each instance keeps in memory between requests the accounts its callers read (`GET /auth/user`,
 * `me`), whether they are clinicians anywhere, the grants each account received, and each clinic's
 * counts of patients (all, and under summary filters). These are what a client would notice if
 * that memory went stale: its own change not shown, a change made through another instance or
 * straight in the database never shown, or access through a clinic or a share outliving it.
 */
let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  first = await startTestApp();
  // Behind one address, as instances behind a load balancer: the tokens of one are the other's,
  // and its own port is where this test reaches it.
  const port = await freePort();
  const started = await startTestApp({
    DATABASE_URL: first.database.url,
    PUBLIC_URL: first.url,
    PORT: String(port),
    DEV_CLIENT_SECRET: first.devClientSecret,
  });
  second = Object.assign(started, { url: `http://127.0.0.1:${port}` });
});
afterAll(async () => {
  await second?.stop();
  await first?.stop();
});

const termsOf = async (app: TestApp, account: TestAccount) =>
  (await call(app.url, '/auth/user', { token: account.token })).body.termsAccepted as string | undefined;

const acceptTerms = (app: TestApp, account: TestAccount, when: string) =>
  call(app.url, '/auth/user', { method: 'PUT', token: account.token, json: { updates: { termsAccepted: when } } });

describe('accounts kept in memory', () => {
  it("shows the caller's own change on its next request, even while other reads of the account run", async () => {
    const alice = await signUp(first, 'alice');
    await termsOf(first, alice);
    for (const seconds of ['01', '02', '03', '04', '05']) {
      const when = `2026-01-02T03:04:${seconds}.000Z`;
      // Reads racing the change may see the account before it; the read after it must not.
      const racing = Array.from({ length: 4 }, () => termsOf(first, alice));
      expect((await acceptTerms(first, alice, when)).status).toBe(200);
      await Promise.all(racing);
      expect(await termsOf(first, alice)).toBe(when);
      const me = await graphql(first.url, '{ me { termsAccepted } }', {}, alice.token);
      expect(me.body.data.me.termsAccepted).toBe(when);
    }
  });

  it('shows a change made through another instance there too, within moments', async () => {
    const bob = await signUp(first, 'bob');
    expect(await termsOf(first, bob)).toBeUndefined();
    const when = '2026-02-03T04:05:06.000Z';
    expect((await acceptTerms(second, bob, when)).status).toBe(200);
    await eventually(async () => (await termsOf(first, bob)) === when, 'the first instance shows the change', 2_000);
  });

  it('shows a change made in the database by something other than Islet (a script, a migration)', async () => {
    const carol = await signUp(first, 'carol');
    expect(await termsOf(first, carol)).toBeUndefined();
    await first.database.query(`update users set terms_accepted = '2026-03-04T05:06:07Z' where id = $1`, [
      carol.userid,
    ]);
    await eventually(
      async () => (await termsOf(first, carol)) === '2026-03-04T05:06:07.000Z',
      'the change is shown',
      2_000,
    );
  });

  it('misses no change made while its listener was disconnected', async () => {
    const dave = await signUp(first, 'dave');
    expect(await termsOf(first, dave)).toBeUndefined();
    // Every instance's listener: each holds one session whose last statement was a LISTEN.
    const listeners = async () =>
      (
        await first.database.query(
          `select pid from pg_stat_activity where datname = current_database() and query like 'listen %' and pid <> pg_backend_pid()`,
        )
      ).map((row) => row.pid as number);
    const cut = await listeners();
    expect(cut.length).toBe(2);
    await first.database.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [cut]);
    await first.database.query(`update users set terms_accepted = '2026-04-05T06:07:08Z' where id = $1`, [dave.userid]);
    // Its notice went to no one. Once the listeners are back (a second later), nothing read before the cut is served.
    await eventually(
      async () => (await listeners()).filter((pid) => !cut.includes(pid)).length === 2,
      'both listeners reconnect',
      5_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await termsOf(first, dave)).toBe('2026-04-05T06:07:08.000Z');
  });
});

describe('clinic memberships kept in memory', () => {
  let server: string;
  let admin: TestAccount;
  let patient: TestAccount;
  let clinicId: string;

  beforeAll(async () => {
    server = await serverToken(first);
    [admin, patient] = await Promise.all([signUp(first, 'admin'), signUp(first, 'patient')]);
    const clinic = await newClinic(first, admin);
    clinicId = clinic.id;
    await joinClinic(first, clinic, admin, patient);
  });

  const readsPatient = async (app: TestApp, clinician: TestAccount) =>
    (await call(app.url, `/data/${patient.userid}`, { token: clinician.token })).status;

  it("gives a new clinician the clinic's patients at once on the instance that added it", async () => {
    const clinician = await signUp(first, 'clinician');
    expect(await readsPatient(first, clinician)).toBe(403);
    await addClinician(first, server, clinicId, clinician, ['CLINIC_MEMBER']);
    expect(await readsPatient(first, clinician)).toBe(200);
  });

  it('gives them to a clinician added through another instance within moments', async () => {
    const clinician = await signUp(first, 'clinician');
    expect(await readsPatient(first, clinician)).toBe(403);
    await addClinician(second, server, clinicId, clinician, ['CLINIC_MEMBER']);
    await eventually(async () => (await readsPatient(first, clinician)) === 200, 'the first instance allows it', 2_000);
  });

  it('ends access through the clinic on every instance the moment the membership ends', async () => {
    const clinician = await signUp(first, 'clinician');
    await addClinician(first, server, clinicId, clinician, ['CLINIC_MEMBER']);
    expect(await readsPatient(first, clinician)).toBe(200);
    expect(await readsPatient(second, clinician)).toBe(200);
    const removed = await call(second.url, `/v1/clinics/${clinicId}/clinicians/${clinician.userid}`, {
      method: 'DELETE',
      token: admin.token,
    });
    expect(removed.status).toBe(200);
    expect(await readsPatient(first, clinician)).toBe(403);
    expect(await readsPatient(second, clinician)).toBe(403);
  });
});

describe('received grants kept in memory', () => {
  const share = (app: TestApp, sharer: TestAccount, grantee: TestAccount, permissions: Record<string, object>) =>
    call(app.url, `/access/${sharer.userid}/${grantee.userid}`, {
      method: 'POST',
      token: sharer.token,
      json: permissions,
    });
  const readsData = async (app: TestApp, grantee: TestAccount, sharer: TestAccount) =>
    (await call(app.url, `/data/${sharer.userid}`, { token: grantee.token })).status;
  const groupsOn = async (app: TestApp, grantee: TestAccount) =>
    Object.keys((await call(app.url, `/access/groups/${grantee.userid}`, { token: grantee.token })).body).sort();

  it('ends access on every instance the moment a share ends, whichever instance ended it', async () => {
    const [sharer, grantee] = await Promise.all([signUp(first, 'sharer'), signUp(first, 'grantee')]);
    expect((await share(first, sharer, grantee, { view: {} })).status).toBe(200);
    expect(await readsData(first, grantee, sharer)).toBe(200);
    expect(await readsData(second, grantee, sharer)).toBe(200);
    expect((await share(second, sharer, grantee, {})).status).toBe(200);
    expect(await readsData(first, grantee, sharer)).toBe(403);
    expect(await readsData(second, grantee, sharer)).toBe(403);
  });

  it('gives access at once on the instance that shared, within moments on another, and lists the share on both', async () => {
    const [sharer, grantee] = await Promise.all([signUp(first, 'sharer'), signUp(first, 'grantee')]);
    // Both instances have read (and kept) that the grantee holds nothing.
    expect(await readsData(first, grantee, sharer)).toBe(403);
    expect(await readsData(second, grantee, sharer)).toBe(403);
    expect(await groupsOn(second, grantee)).toEqual([grantee.userid]);
    expect((await share(first, sharer, grantee, { view: {} })).status).toBe(200);
    expect(await readsData(first, grantee, sharer)).toBe(200);
    expect(await groupsOn(first, grantee)).toEqual([grantee.userid, sharer.userid].sort());
    await eventually(
      async () => (await readsData(second, grantee, sharer)) === 200,
      'the other instance allows it',
      2_000,
    );
    expect(await groupsOn(second, grantee)).toEqual([grantee.userid, sharer.userid].sort());
  });

  it('sees a share written in the database by something other than Islet', async () => {
    const [sharer, grantee] = await Promise.all([signUp(first, 'sharer'), signUp(first, 'grantee')]);
    expect(await readsData(first, grantee, sharer)).toBe(403);
    await first.database.query(
      `insert into permission_grants (sharer_id, grantee_id, permissions, created_time, modified_time)
       values ($1, $2, '{view}', now(), now())`,
      [sharer.userid, grantee.userid],
    );
    await eventually(async () => (await readsData(first, grantee, sharer)) === 200, 'the share is honoured', 2_000);
  });
});

describe("a clinic's count of patients kept in memory", () => {
  let admin: TestAccount;
  let clinicId: string;

  beforeAll(async () => {
    admin = await signUp(first, 'counted-admin');
    clinicId = (await newClinic(first, admin)).id;
  });

  const totalOn = async (app: TestApp) => {
    const reply = await call(app.url, `/v1/clinics/${clinicId}/patients?limit=1`, { token: admin.token });
    expect(reply.status).toBe(200);
    return reply.body.meta.totalCount as number;
  };
  const addPatient = async (app: TestApp, fullName: string) => {
    const reply = await call(app.url, `/v1/clinics/${clinicId}/patients`, {
      method: 'POST',
      token: admin.token,
      json: { fullName, birthDate: '2010-01-02' },
    });
    expect(reply.status).toBe(200);
    return reply.body.id as string;
  };

  it('counts a patient added or removed at once on the instance that did it, and within moments on another', async () => {
    const before = await Promise.all([totalOn(first), totalOn(second)]);
    expect(before).toEqual([before[0], before[0]]);
    const added = await addPatient(first, 'Counted Once');
    expect(await totalOn(first)).toBe(before[0]! + 1);
    await eventually(async () => (await totalOn(second)) === before[0]! + 1, 'the other instance counts it', 2_000);
    const removed = await call(second.url, `/v1/clinics/${clinicId}/patients/${added}`, {
      method: 'DELETE',
      token: admin.token,
    });
    expect(removed.status).toBe(204);
    expect(await totalOn(second)).toBe(before[0]);
    await eventually(async () => (await totalOn(first)) === before[0], 'the first instance no longer counts it', 2_000);
  });

  it('counts under a summary filter a patient whose statistics changed, within moments on every instance', async () => {
    const filtered = `/v1/clinics/${clinicId}/patients?limit=1&cgm.timeInVeryLowPercent=%3E0.01`;
    const countOn = async (app: TestApp) => {
      const reply = await call(app.url, filtered, { token: admin.token });
      expect(reply.status).toBe(200);
      return reply.body.meta.count as number;
    };
    const patient = await addPatient(first, 'Counted Low');
    const before = await Promise.all([countOn(first), countOn(second)]);
    expect(before).toEqual([before[0], before[0]]);
    // The summary writer replaces a user's statistics; here a script writes them.
    await first.database.query(
      `insert into glucose_period_stats (user_id, kind, period, previous, last_data, time_in_very_low_percent, glycemia_risk_zone)
       select $1, 'cgm', '14d', previous, now(), 0.05, 'A' from unnest(array[false, true]) as previous`,
      [patient],
    );
    for (const app of [first, second])
      await eventually(async () => (await countOn(app)) === before[0]! + 1, 'the patient is counted', 2_000);
    await first.database.query('delete from glucose_period_stats where user_id = $1', [patient]);
    for (const app of [first, second])
      await eventually(async () => (await countOn(app)) === before[0], 'the patient is no longer counted', 2_000);
  });

  it('counts patients written in the database by something other than Islet', async () => {
    const before = await totalOn(first);
    await first.database.query(
      `insert into clinic_patients (clinic_id, user_id, full_name, tags, permissions, reviews, created_time, updated_time)
       select $1, substr(md5('scripted' || n), 1, 10), 'Scripted ' || n, '{}', '{view}', '[]', now(), now() from generate_series(1, 3) n`,
      [clinicId],
    );
    await eventually(async () => (await totalOn(first)) === before + 3, 'the scripted patients are counted', 2_000);
  });
});
