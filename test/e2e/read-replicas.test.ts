import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { addClinician, newClinic } from '../support/clinics';
import { eventually } from '../support/eventually';
import { call } from '../support/http';
import { freePort } from '../support/ports';
import { describeWithProgram } from '../support/describe-with-program';
import { STANDBY_TOOLS, startPrimaryWithStandby, type PrimaryWithStandby } from '../support/standby';

/**
 * Reads from a streaming replica: a primary and a hot standby made with pg_basebackup, the
 * service reading its patient lists from the standby (its log, log_statement = all, shows the
 * statements it ran), the writer reading its own writes, and the standby stopped.
 */
let pair: PrimaryWithStandby;
let app: TestApp;
let admin: TestAccount;
let member: TestAccount;
let clinicId: string;
/** The statements (X-Sql-Statements) of the member's patient list read on the standby. */
let statementsOnStandby: number;

const listAs = (account: TestAccount, instance: TestApp = app) =>
  call(instance.url, `/v1/clinics/${clinicId}/patients?limit=100`, { token: account.token });
const names = (reply: Awaited<ReturnType<typeof listAs>>) =>
  (reply.body.data as { fullName: string }[]).map((patient) => patient.fullName).sort();

async function addPatient(fullName: string): Promise<void> {
  const reply = await call(app.url, `/v1/clinics/${clinicId}/patients`, {
    token: admin.token,
    json: { fullName, birthDate: '1990-01-02' },
  });
  expect(reply.status).toBe(200);
}

const settings = () => ({
  DATABASE_URL: pair.primary.url,
  DATABASE_REPLICA_URLS: pair.standby.url,
  // Long enough that a standby whose replay is paused still serves those who did not write.
  REPLICA_MAX_LAG_MS: '60000',
});

/** Runs `sql` on the standby. */
async function onStandby(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: pair.standby.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** The service's counter sample, e.g. `islet_replica_skips_total{replica="replica-1",reason="down"}`, from /metrics. */
async function metric(sample: string): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

/** The patient-list statements for this clinic the standby has run (its statement log). */
const listsOnStandby = () =>
  pair.standby
    .log()
    .split('\n')
    .filter((line) => line.includes('select c.clinic_id as listed_clinic_id, page.*') && line.includes(clinicId))
    .length;

describeWithProgram('reads from a streaming replica', STANDBY_TOOLS, () => {
  beforeAll(async () => {
    pair = await startPrimaryWithStandby();
    app = await startTestApp(settings());
    const server = await serverToken(app);
    [admin, member] = await Promise.all([signUp(app, 'admin'), signUp(app, 'member')]);
    clinicId = (await newClinic(app, admin)).id;
    await addClinician(app, server, clinicId, member, ['CLINIC_MEMBER']);
    await addPatient('Alice Anchor');
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await pair?.remove();
  });

  it('runs the patient list on the standby', async () => {
    await eventually(
      async () => names(await listAs(member)).includes('Alice Anchor'),
      'the standby replays the patient',
    );
    const before = listsOnStandby();
    const reply = await listAs(member);
    expect(reply.status).toBe(200);
    expect(names(reply)).toEqual(['Alice Anchor']);
    expect(listsOnStandby()).toBe(before + 1);
    statementsOnStandby = Number(reply.headers.get('x-sql-statements'));
    expect(statementsOnStandby).toBeGreaterThan(0);
    expect(await metric('islet_replica_reads_total{served_by="replica",reason="current"}')).toBeGreaterThan(0);
  });

  it('shows the writer its own writes at once, while others may read the standby a little behind', async () => {
    await onStandby('select pg_wal_replay_pause()');
    try {
      await addPatient('Bob Buoy');
      // The writer: the standby has not replayed the write, so the primary answers.
      expect(names(await listAs(admin))).toEqual(['Alice Anchor', 'Bob Buoy']);
      // Someone else: the standby (paused, well within REPLICA_MAX_LAG_MS) answers, without it.
      const before = listsOnStandby();
      expect(names(await listAs(member))).toEqual(['Alice Anchor']);
      expect(listsOnStandby()).toBe(before + 1);
      expect(await metric('islet_replica_skips_total{replica="replica-1",reason="behind_caller"}')).toBeGreaterThan(0);
    } finally {
      await onStandby('select pg_wal_replay_resume()');
    }
    await eventually(async () => names(await listAs(member)).includes('Bob Buoy'), 'the standby catches up');
    // Replayed: the writer's reads go back to the standby.
    await eventually(async () => {
      const before = listsOnStandby();
      await listAs(admin);
      return listsOnStandby() === before + 1;
    }, 'the writer reads the standby again');
  });

  it('shows the writer its own writes on another instance too', async () => {
    // Behind one address, as instances behind a load balancer: the tokens of one are the other's,
    // and its own port is where this test reaches it.
    const port = await freePort();
    const other = await startTestApp({ ...settings(), PUBLIC_URL: app.url, PORT: String(port) });
    const direct = { ...other, url: `http://127.0.0.1:${port}` };
    try {
      await onStandby('select pg_wal_replay_pause()');
      try {
        await addPatient('Dora Dune');
        // The other instance heard of the write (LISTEN/NOTIFY, at its commit): the primary answers.
        expect(names(await listAs(admin, direct))).toContain('Dora Dune');
        expect(names(await listAs(member, direct))).not.toContain('Dora Dune');
      } finally {
        await onStandby('select pg_wal_replay_resume()');
      }
    } finally {
      await other.stop();
    }
  });

  it('reads from the primary, without an error, once the standby is stopped', async () => {
    const skipped = async () =>
      (await metric('islet_replica_skips_total{replica="replica-1",reason="down"}')) +
      (await metric('islet_replica_skips_total{replica="replica-1",reason="failed"}'));
    const before = await skipped();
    await pair.standby.stop();
    let reply!: Awaited<ReturnType<typeof listAs>>;
    for (let read = 0; read < 5; read += 1) {
      reply = await listAs(member);
      expect(reply.status).toBe(200);
      expect(names(reply)).toEqual(['Alice Anchor', 'Bob Buoy', 'Dora Dune']);
    }
    expect(await skipped()).toBeGreaterThan(before);
    // Statements on a replica are counted for the request as on the primary.
    expect(Number(reply.headers.get('x-sql-statements'))).toBe(statementsOnStandby);
    await addPatient('Carol Cove');
    expect(names(await listAs(member))).toContain('Carol Cove');
  });
});
