import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { SUMMARY_SCHEMA_VERSION } from '../../../src/domains/glucose/glucose-summary.entity';
import { OF_USER_AT } from '../../../src/domains/glucose/readings.repository';
import { BENCH_SECONDS, load, type Measurement } from '../harness';
import { REMEMBERED_IN_BENCH, type BenchEnvironment } from '../setup';
import { signUpUser } from './seed';

const PATIENTS = 10_000;
/** A dashboard read: a few clinicians at once, as the TIDE rows. */
const CONNECTIONS = 4;
const HOUR_MS = 3_600_000;
const FIVE_MINUTES_MS = 300_000;
/** Every IANA zone the runtime knows. */
const ZONES = Intl.supportedValuesOf('timeZone');

/**
 * 10,000 other patients with a day of 15-minute readings each (960,000 rows), then the measured
 * patient: 30 days of 5-minute readings ending now, in an upload whose details name its zone
 * (the records carry no offset, so the AGP reads the dataset's zone too), its summary outdated.
 */
async function seed(client: pg.Client, userId: string): Promise<void> {
  await client.query(
    `with shapes as (
       insert into glucose_reading_shapes (user_id, dataset_id, digest, type, minutes, device_id, fields, first_time, last_time)
       select substr(md5('agp-patient' || p), 1, 10), 'agp-bench', md5('agp-patient' || p)::uuid, 'cbg', 15, 'bench-cgm', '{}',
              now() - interval '1 day', now()
         from generate_series(1, $1::int) as p
       returning id, user_id)
     insert into glucose_readings (user_id, time, id, shape, value, active, created_time)
     select s.user_id, now() - r * interval '15 minutes', md5(p || '-' || r)::uuid, s.id,
            4 + (p * 7 + r * 13) % 90 / 10.0, true, now()
       from generate_series(1, $1::int) as p join shapes s on s.user_id = substr(md5('agp-patient' || p), 1, 10),
            generate_series(0, 95) as r`,
    [PATIENTS],
  );
  await client.query(
    `insert into datasets (id, user_id, data_set_type, state, deduplicator, device_id, details, created_user_id, created_time)
     values ('0123456789abcdef0123456789abcdef', $1, 'continuous', 'open', 'org.tidepool.deduplicator.dataset.drop.hash',
             'bench-cgm', '{"timezone": "America/New_York"}', $1, now())`,
    [userId],
  );
  await client.query(
    `with shape as (
       insert into glucose_reading_shapes (user_id, dataset_id, digest, type, minutes, device_id, fields, first_time, last_time)
       values ($1, '0123456789abcdef0123456789abcdef', md5('agp')::uuid, 'cbg', 5, 'bench-cgm', '{}',
               to_timestamp($2::float8 / 1000) - interval '30 days', to_timestamp($2::float8 / 1000))
       returning id)
     insert into glucose_readings (user_id, time, id, shape, value, active, created_time)
     select $1, to_timestamp($2::float8 / 1000) - r * interval '5 minutes', md5('agp-' || r)::uuid, (select id from shape),
            4 + (r * 37 % 23) / 2.0 + 3 * sin(r * pi() / 144), true, now()
       from generate_series(0, 30 * 288 - 1) as r`,
    [userId, Math.floor(Date.now() / FIVE_MINUTES_MS) * FIVE_MINUTES_MS - HOUR_MS],
  );
  // Marked outdated as an upload marks it (summaries.repository.ts markOutdated), so the
  // service's updater builds the summary, and the AGP has the revision it remembers AGPs by.
  await client.query(
    `insert into glucose_summaries (user_id, kind, outdated_since, queued_at, pending_from, schema_version)
     values ($1, 'cgm', now(), now(), now() - interval '31 days', $2)`,
    [userId, SUMMARY_SCHEMA_VERSION],
  );
  await client.query('vacuum analyze glucose_readings');
  await client.query('vacuum analyze datasets');
}

/** numpy's default percentile of ascending values. */
function percentile(sorted: Float64Array, p: number): number {
  const h = ((sorted.length - 1) * p) / 100;
  const low = Math.floor(h);
  return low + 1 < sorted.length ? sorted[low]! + (h - low) * (sorted[low + 1]! - sorted[low]!) : sorted[low]!;
}

/**
 * The floor: the same readings in one hand-written statement (the window from the newest reading,
 * in SQL; the user named as the readings' index keys it, OF_USER_AT), then 96 bins at the dataset's zone as a fixed offset and five percentiles each.
 */
async function floorRow(databaseUrl: string, userId: string, days: number): Promise<Measurement> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: CONNECTIONS });
  const cgm = `shape = any(array(select id from glucose_reading_shapes where user_id = $1 and type = 'cbg'))`;
  const sql = `
    with newest as (select max(time) as last from glucose_readings
                     where ${OF_USER_AT('$1')} and ${cgm} and active and time <= now() + interval '1 day')
    select r.* from newest n cross join lateral (
      select extract(epoch from time) * 1000 as t, value as v from glucose_readings
       where ${OF_USER_AT('$1')} and ${cgm} and active and time <= n.last
         and time >= date_bin('1 hour', n.last, timestamptz '2000-01-01Z') - ($2::int * 24 - 1) * interval '1 hour'
       order by time, id) r`;
  try {
    const latencies: number[] = [];
    const end = performance.now() + BENCH_SECONDS * 1000;
    let errors = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) {
          const start = performance.now();
          try {
            const { rows } = await pool.query<{ t: string; v: number }>(sql, [userId, days]);
            const bins: number[][] = Array.from({ length: 96 }, () => []);
            for (const row of rows) {
              const minute = (((Math.floor(Number(row.t) / 60_000) - 300) % 1440) + 1440) % 1440;
              bins[Math.floor(minute / 15)]!.push(row.v);
            }
            for (const values of bins) {
              const sorted = Float64Array.from(values).sort();
              if (sorted.length >= 5) for (const p of [5, 25, 50, 75, 95]) percentile(sorted, p);
            }
          } catch {
            errors += 1;
          }
          latencies.push(performance.now() - start);
        }
      }),
    );
    latencies.sort((a, b) => a - b);
    const at = (share: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * share))]!;
    return {
      name: `floor: one SELECT of ${days} days of readings + JS percentiles`,
      requestsPerSecond: latencies.length / BENCH_SECONDS,
      p50: at(0.5),
      p99: at(0.99),
      errors,
    };
  } finally {
    await pool.end();
  }
}

/** Issue 30: a patient's AGP of 14 and 30 days of 5-minute data, among 10,000 patients' readings. */
export async function agpScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const patient = await signUpUser(env, 'agp');
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    await seed(client, patient.userid);
  } finally {
    await client.end();
  }
  const rows: Measurement[] = [];
  for (const [period, days, target] of [
    ['14d', 14, 20],
    ['30d', 30, 60],
  ] as const) {
    const floor = await floorRow(env.databaseUrl, patient.userid, days);
    // A fresh token per row: access tokens live 5 minutes.
    const { token } = await signUpUser(env, 'agp-reader').then(async (reader) => {
      await fetch(`${env.app.url}/access/${patient.userid}/${reader.userid}`, {
        method: 'POST',
        headers: { 'x-tidepool-session-token': patient.token, 'content-type': 'application/json' },
        body: JSON.stringify({ view: {} }),
      });
      return reader;
    });
    const path = `/v1/patients/${patient.userid}/agp?period=${period}`;
    const options = {
      url: `${env.app.url}${path}`,
      headers: { 'x-tidepool-session-token': token },
      connections: CONNECTIONS,
      cpuOf: env.app.process,
      databaseCpu: true,
    };
    const remembered = await load(
      `GET ${path.replace(patient.userid, '{userId}')} (${days * 288} readings)`,
      options,
      floor.name,
    );
    remembered.notes = `a viewer's read, access logged, the AGP remembered (AGP_CACHE_ENTRIES); ${PATIENTS.toLocaleString('en')} other patients' readings in the table; target p50 < ${target} ms`;
    // Each request names the next of every zone the runtime knows (over 400), more than the
    // service remembers here, so none is answered from memory: the AGP computed each time.
    let zone = 0;
    const computed = await load(
      `the same, computed: a new timeZone each request`,
      { ...options, nextPath: () => `${path}&timeZone=${encodeURIComponent(ZONES[zone++ % ZONES.length]!)}` },
      floor.name,
    );
    computed.notes = `AGP_CACHE_ENTRIES=${REMEMBERED_IN_BENCH} in the bench, fewer than the zones asked in turn`;
    rows.push(floor, remembered, computed);
  }
  return rows;
}
