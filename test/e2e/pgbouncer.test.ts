import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { signUp } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { joinClinic, newClinic } from '../support/clinics';
import { csvObjects } from '../support/csv';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually } from '../support/eventually';
import { cbg, uploadReadings } from '../support/glucose';
import { call } from '../support/http';
import { liveClient, liveSubscriptions, type LiveClient } from '../support/live';
import { describeWithProgram } from '../support/describe-with-program';
import { PGBOUNCER, startPgBouncer, type TestPgBouncer } from '../support/pgbouncer';
import { smokeFlows } from '../support/smoke-flows';

/**
 * Islet behind PgBouncer in transaction pooling mode, as operators run it: DATABASE_URL is the
 * pooler, DATABASE_DIRECT_URL the server itself. The smoke flows still work, and so does what
 * needs a session of its own (LISTEN, the access log's prepared INSERT, the migration lock),
 * which must not go through the pooler.
 */
let bouncer: TestPgBouncer;
let database: TestDatabase;
let app: TestApp;
const clients: LiveClient[] = [];

const FIVE_MINUTES = 5 * 60_000;

const databaseName = () => new URL(database.url).pathname.slice(1);

/** The server's sessions of the app's database, split by whether PgBouncer opened them. */
async function sessions(): Promise<{ pooled: string[]; direct: string[] }> {
  const servers = await bouncer.admin('show servers');
  const pooledPids = new Set(servers.filter((row) => row.database === databaseName()).map((row) => row.remote_pid));
  const rows = await database.query(
    'select pid, query from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
  );
  const queries = (pooled: boolean) =>
    rows.filter((row) => pooledPids.has(row.pid) === pooled).map((row) => String(row.query));
  return { pooled: queries(true), direct: queries(false) };
}

describeWithProgram('through PgBouncer in transaction pooling mode', PGBOUNCER, () => {
  // Inside the suite, so that nothing starts when it is skipped.
  beforeAll(async () => {
    bouncer = await startPgBouncer(process.env.ISLET_TEST_ADMIN_URL!);
    // The app's own database, so that its URL through the pooler is known before the app starts.
    database = await createTestDatabase();
    app = await startTestApp({ DATABASE_URL: bouncer.urlOf(database.url), DATABASE_DIRECT_URL: database.url });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await app?.stop();
    await bouncer?.stop();
    await database?.release();
  });

  smokeFlows(() => app);

  it('sends the app’s statements through PgBouncer', async () => {
    await signUp(app);
    const stats = await bouncer.admin('show stats');
    const ours = stats.find((row) => row.database === databaseName());
    expect(Number(ours?.total_xact_count)).toBeGreaterThan(0);
    expect(Number(ours?.total_query_count)).toBeGreaterThan(0);
  });

  it('pushes a live summary update, heard through LISTEN on the direct connection', async () => {
    const patient = await signUp(app, 'patient');
    const live = liveClient(app.url, patient.token);
    clients.push(live);
    const before = await liveSubscriptions(app.url);
    const dashboard = live.subscribe(
      `subscription ($userId: ID!) { glucoseSummaryUpdated(userId: $userId) { userId kind } }`,
      { userId: patient.userid },
    );
    await eventually(async () => (await liveSubscriptions(app.url)) > before, 'the server follows the subscription');
    const newest = Date.now() - FIVE_MINUTES;
    await uploadReadings(app, patient.userid, patient.token, [cbg(newest - FIVE_MINUTES, 110), cbg(newest, 120)]);
    const { data, errors } = await dashboard.next();
    expect(errors).toBeUndefined();
    expect(data!.glucoseSummaryUpdated).toEqual({ userId: patient.userid, kind: 'CGM' });
    await dashboard.stop();
    const { pooled, direct } = await sessions();
    expect(direct.some((query) => /^listen /i.test(query))).toBe(true);
    expect(pooled.some((query) => /^listen /i.test(query))).toBe(false);
  });

  it('records a grantee’s read on the access log, whose prepared INSERT runs on the direct connection', async () => {
    const [owner, viewer] = await Promise.all([signUp(app, 'owner'), signUp(app, 'viewer')]);
    const shared = await call(app.url, `/access/${owner.userid}/${viewer.userid}`, {
      token: owner.token,
      json: { view: {} },
    });
    expect(shared.status).toBe(200);
    // Reads are logged in batches after their answers, each batch through the prepared statement.
    for (let read = 0; read < 3; read += 1)
      expect((await call(app.url, `/export/${owner.userid}`, { token: viewer.token })).status).toBe(200);
    await eventually(async () => {
      const log = await call(app.url, `/v1/users/${owner.userid}/access_log`, { token: owner.token });
      return log.body.some(
        (entry: any) =>
          entry.accessorUserId === viewer.userid &&
          entry.operation === 'GET /export/:userId' &&
          entry.outcome === 'allowed',
      );
    }, 'the reads are on the owner’s access log');
    // The pool of prepared statements is the only one on the direct URL that writes the log.
    const { direct } = await sessions();
    expect(direct.some((query) => query.includes('insert into access_log_records'))).toBe(true);
  });

  it('streams a clinic’s patient list as CSV through a cursor', async () => {
    const [admin, patient] = await Promise.all([signUp(app, 'admin'), signUp(app, 'patient')]);
    const clinic = await newClinic(app, admin);
    await joinClinic(app, clinic, admin, patient, 'Pooled Patient');
    const reply = await call(app.url, `/v1/clinics/${clinic.id}/patients?format=csv`, { token: admin.token });
    expect(reply.status).toBe(200);
    expect(csvObjects(reply.text).map((row) => row.id)).toEqual([patient.userid]);
  });

  it('leaves no migration lock held: the lock was taken and released on a session of its own', async () => {
    const locks = await database.query(
      // pg_advisory_lock(0x151e7, 1) of src/infra/database/orm.ts, in pg_locks' terms.
      `select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
        where l.locktype = 'advisory' and d.datname = current_database()
          and l.classid = ${0x151e7} and l.objid = 1 and l.objsubid = 2`,
    );
    expect(locks).toEqual([{ n: 0 }]);
    // A restart takes the lock again: it would wait forever for one left on a pooled connection.
    await app.restart();
    expect((await call(app.url, '/auth/user', { token: (await signUp(app)).token })).status).toBe(200);
  });
});
