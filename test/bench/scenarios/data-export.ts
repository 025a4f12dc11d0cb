import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { signUpUser } from './seed';

/** A year of 5-minute CGM data. */
const READINGS = 365 * 288;
const DATASET = 'fedcba9876543210fedcba9876543210';
const RUNS = 3;
const TARGET_SECONDS = 5;
const TARGET_GROWTH_MIB = 64;
const MIB = 1024 * 1024;

/** The patient's year of readings, as a CGM uploader stores them (trend and interval fields), in one upload with a zone. */
async function seed(databaseUrl: string, userId: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `insert into datasets (id, user_id, data_set_type, state, deduplicator, device_id, details, created_user_id, created_time)
       values ($2, $1, 'continuous', 'open', 'org.tidepool.deduplicator.dataset.delete.origin', 'bench-cgm',
               '{"timezone": "Europe/Paris", "deviceManufacturers": ["Dexcom"], "deviceModel": "G7"}', $1, now())`,
      [userId, DATASET],
    );
    await client.query(
      `with shape as (
         insert into glucose_reading_shapes (user_id, dataset_id, digest, type, minutes, device_id, fields, first_time, last_time)
         values ($1, $2, md5('seed')::uuid, 'cbg', 5, 'bench-cgm', '{"sampleInterval": 300000, "trend": "constant"}',
                 timestamptz '2024-01-01Z', timestamptz '2024-01-01Z' + $3::int * interval '5 minutes')
         returning id)
       insert into glucose_readings (user_id, time, id, shape, value, active, extra, created_time)
       select $1, timestamptz '2024-01-01Z' + r * interval '5 minutes', md5('export-' || r)::uuid, (select id from shape),
              4 + (r * 37 % 23) / 2.0, true,
              jsonb_build_object('deviceTime', to_char(timestamp '2024-01-01' + r * interval '5 minutes', 'YYYY-MM-DD"T"HH24:MI:SS')),
              now()
         from generate_series(0, $3::int - 1) as r`,
      [userId, DATASET, READINGS],
    );
    await client.query('vacuum analyze glucose_readings');
  } finally {
    await client.end();
  }
}

const residentMiB = (pid: number) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** One download read to the end (and dropped) while the service's VmRSS is sampled every 20 ms. */
async function download(url: string, token: string, pid: number) {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const baseline = residentMiB(pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, residentMiB(pid))), 20);
  const start = performance.now();
  let bytes = 0;
  let ok = false;
  try {
    const response = await fetch(url, { headers: { 'x-tidepool-session-token': token } });
    for await (const chunk of response.body!) bytes += (chunk as Uint8Array).byteLength;
    ok = response.ok;
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, residentMiB(pid));
  return { ms: performance.now() - start, bytes, growth: peak - baseline, baseline, ok };
}

/** Issue 30: a year of 5-minute data (105,120 readings) exported as JSON, CSV and XLSX by a viewer. */
export async function dataExportScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const patient = await signUpUser(env, 'export');
  await seed(env.databaseUrl, patient.userid);
  const reader = await signUpUser(env, 'export-reader');
  await fetch(`${env.app.url}/access/${patient.userid}/${reader.userid}`, {
    method: 'POST',
    headers: { 'x-tidepool-session-token': patient.token, 'content-type': 'application/json' },
    body: JSON.stringify({ view: {} }),
  });
  const rows: Measurement[] = [];
  // The reference: Tidepool's read API over the same readings, read by the same keyset batches.
  const reference = `GET /data/{userId} (the same ${READINGS.toLocaleString('en')} readings, JSON)`;
  const targets = [
    ...(process.env.EXPORT_FORMATS ?? 'json,csv,xlsx')
      .split(',')
      .map((format) => [format, `${env.app.url}/export/${patient.userid}?format=${format}&bgUnits=mg/dL`]),
    ['data', `${env.app.url}/data/${patient.userid}`],
  ];
  for (const [format, url] of targets as [string, string][]) {
    const runs = [];
    for (let run = 0; run < RUNS; run += 1) runs.push(await download(url, reader.token, env.app.process.pid!));
    const times = runs.map((run) => run.ms).sort((a, b) => a - b);
    const growth = Math.max(...runs.map((run) => run.growth));
    const seconds = times[Math.floor(RUNS / 2)]! / 1000;
    const verdict = seconds < TARGET_SECONDS && growth < TARGET_GROWTH_MIB ? 'within' : 'OVER';
    const isReference = format === 'data';
    rows.push({
      name: isReference
        ? reference
        : `GET /export/{userId}?format=${format} (${READINGS.toLocaleString('en')} readings)`,
      floor: isReference ? undefined : reference,
      requestsPerSecond: 1 / seconds,
      mibPerSecond: runs[0]!.bytes / MIB / seconds,
      p50: times[Math.floor(RUNS / 2)]!,
      p99: times[RUNS - 1]!,
      errors: runs.filter((run) => !run.ok).length,
      notes: `${RUNS} sequential; ${(runs[0]!.bytes / MIB).toFixed(1)} MiB; peak VmRSS growth per run ${runs.map((run) => `+${run.growth.toFixed(0)}`).join('/')} MiB over ${runs.map((run) => run.baseline.toFixed(0)).join('/')} MiB${isReference ? '' : `; ${verdict} target < ${TARGET_SECONDS} s, < ${TARGET_GROWTH_MIB} MiB`}`,
    });
  }
  return rows;
}
