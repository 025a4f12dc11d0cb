import path from 'node:path';
import pg from 'pg';
import { load, type LoadOptions, type Measurement } from '../harness';
import { SERVER_SECRET, startService, type BenchEnvironment } from '../setup';
import { signUpUser } from './seed';

const SHARERS = 100;
const PATIENTS = 1000;
/**
 * Turns each instance takes per row. The order alternates round by round (on, off, off, on, on,
 * off, off, on): a drift of the machine during the row (autovacuum of the growing log, the WAL,
 * the other core's load) then weighs on both alike instead of on whichever always went second.
 */
const ROUNDS = 6;
/**
 * Seconds each instance is driven, unmeasured, before its first round: V8 compiles the row's
 * paths then. Counted, that first round read 20-30% below the rest and swung the ratio by up to
 * 0.1 depending on which instance warmed faster.
 */
const WARM_UP_SECONDS = 4;

/** `count` accounts sharing `view` with `granteeId`, and a clinic's `PATIENTS` patients, in a few INSERTs. */
async function seed(databaseUrl: string, granteeId: string, clinicId: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `insert into users (id, username, emails, roles, email_verified, created_time)
       select substr(md5('log-sharer' || n), 1, 10), 'log-sharer' || n || '@example.org',
              array['log-sharer' || n || '@example.org'], '{}', false, now()
       from generate_series(1, $1::int) as n returning id`,
      [SHARERS],
    );
    await client.query(
      `insert into permission_grants (sharer_id, grantee_id, permissions, created_time, modified_time)
       select id, $1, '{view}', now(), now() from unnest($2::text[]) as id`,
      [granteeId, rows.map((row) => row.id)],
    );
    await client.query(
      `insert into clinic_patients (clinic_id, user_id, full_name, birth_date, email, mrn, tags, permissions, reviews,
                                    last_reviewed, created_time, updated_time)
       select $1, substr(md5('log-patient' || n), 1, 10), 'Patient ' || n, date '1980-01-01' + n, null, null,
              '{}', '{view}', '[]'::jsonb, null, now(), now()
       from generate_series(1, $2::int) as n`,
      [clinicId, PATIENTS],
    );
    return rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}

async function tokenOf(response: Response): Promise<string> {
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}: ${await response.text()}`);
  return response.headers.get('x-tidepool-session-token')!;
}

/** A legacy session on one instance (each instance is its own issuer). */
const login = (url: string, email: string, password: string) =>
  fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
  }).then(tokenOf);

const serverLogin = (url: string) =>
  fetch(`${url}/auth/serverlogin`, {
    method: 'POST',
    headers: { 'x-tidepool-server-name': 'bench', 'x-tidepool-server-secret': SERVER_SECRET },
  }).then(tokenOf);

/**
 * Each round's rate of the recording instance over that of the other, measured back to back:
 * their median and range say how far the row's ratio can be trusted on a machine whose speed
 * drifts between rounds.
 */
function pairedRatios(recorded: Measurement[], unrecorded: Measurement[]): string {
  const ratios = recorded
    .map((round, index) => round.requestsPerSecond / unrecorded[index]!.requestsPerSecond)
    .sort((a, b) => a - b);
  const middle = ratios.length / 2;
  const median = (ratios[Math.floor(middle)]! + ratios[Math.ceil(middle) - 1]!) / 2;
  return `paired rounds: median ${median.toFixed(2)}, ${ratios[0]!.toFixed(2)}-${ratios.at(-1)!.toFixed(2)}`;
}

/** The rounds of one instance as one row: mean rate, latency and CPU; errors added up. */
function merged(name: string, rounds: Measurement[], floor?: string, notes?: string): Measurement {
  const mean = (pick: (row: Measurement) => number) => rounds.reduce((sum, row) => sum + pick(row), 0) / rounds.length;
  return {
    name,
    requestsPerSecond: mean((row) => row.requestsPerSecond),
    p50: mean((row) => row.p50),
    p99: mean((row) => row.p99),
    errors: rounds.reduce((sum, row) => sum + row.errors, 0),
    cpuMsPerRequest: mean((row) => row.cpuMsPerRequest ?? 0),
    databaseCpuMsPerRequest: mean((row) => row.databaseCpuMsPerRequest ?? 0),
    floor,
    notes,
  };
}

interface Instance {
  url: string;
  process: NonNullable<LoadOptions['cpuOf']>;
}

/**
 * Issue 16: what recording the access log costs on read paths the bench measures: an instance
 * recording and one with ACCESS_LOG_RECORDING=false, on the same database, driven in turns.
 * Rows name how many entries each request writes (in one INSERT).
 */
export async function accessLogScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const viewer = await signUpUser(env, 'log-viewer');
  const admin = await signUpUser(env, 'log-admin');
  const clinic = await fetch(`${env.app.url}/v1/clinics`, {
    method: 'POST',
    headers: { 'x-tidepool-session-token': admin.token, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Audited Bench Clinic', preferredBgUnits: 'mg/dL' }),
  }).then((response) => response.json() as Promise<{ id: string }>);
  const sharers = await seed(env.databaseUrl, viewer.userid, clinic.id);

  // Two fresh instances alike but for the setting. The bench's own instance has served every
  // scenario before this one (a larger heap, its caches warm): measured against a fresh one it
  // read a few points worse whatever it recorded.
  const options = {
    databaseUrl: env.databaseUrl,
    dataDir: env.dataDir,
    clientsFile: path.join(env.dataDir, 'clients.json'),
    store: env.storeEnv,
  };
  const [recorded, unrecorded] = await Promise.all([
    startService(options),
    startService(options, { ACCESS_LOG_RECORDING: 'false' }),
  ]);
  try {
    const instances: [Instance, string][] = [
      [{ url: recorded.url, process: recorded.process }, ''],
      [{ url: unrecorded.url, process: unrecorded.process }, ' (recording off)'],
    ];
    const rows: { name: string; request: (instance: Instance) => Promise<LoadOptions> }[] = [
      {
        name: 'access log: REST device logs of a sharer (1 entry/request)',
        request: async ({ url }) => ({
          url: `${url}/v1/users/${sharers[0]}/device_logs?startAtTime=2026-01-01T00:00:00Z&endAtTime=2026-01-02T00:00:00Z`,
          headers: { 'x-tidepool-session-token': await login(url, viewer.email, viewer.password) },
        }),
      },
      {
        name: 'access log: GraphQL 100 users with permissions (100 entries/request)',
        request: async ({ url }) => ({
          url: `${url}/graphql`,
          method: 'POST',
          headers: { 'x-tidepool-session-token': await serverLogin(url), 'content-type': 'application/json' },
          body: JSON.stringify({
            query:
              'query ($ids: [ID!]!) { users(ids: $ids) { userId username sharedWith(first: 10) { nodes { userId permissions } } } }',
            variables: { ids: sharers },
          }),
        }),
      },
      {
        name: 'access log: REST clinic patient list, limit 100 (100 entries/request)',
        request: async ({ url }) => ({
          url: `${url}/v1/clinics/${clinic.id}/patients?limit=100`,
          headers: { 'x-tidepool-session-token': await login(url, admin.email, admin.password) },
        }),
      },
    ];
    const measurements: Measurement[] = [];
    for (const row of rows) {
      const requests = await Promise.all(instances.map(([instance]) => row.request(instance)));
      for (const request of requests) await load('warm-up', { ...request, seconds: WARM_UP_SECONDS });
      const rounds: Measurement[][] = instances.map(() => []);
      for (let round = 0; round < ROUNDS; round += 1) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const index of order) {
          const [instance, suffix] = instances[index]!;
          rounds[index]!.push(
            await load(`${row.name}${suffix}`, { ...requests[index]!, cpuOf: instance.process, databaseCpu: true }),
          );
        }
      }
      const off = `${row.name}${instances[1]![1]}`;
      const notes = pairedRatios(rounds[0]!, rounds[1]!);
      measurements.push(merged(row.name, rounds[0]!, off, notes), merged(off, rounds[1]!));
    }
    return measurements;
  } finally {
    await Promise.all([recorded.stop(), unrecorded.stop()]);
  }
}
