import fs from 'node:fs';
import pg from 'pg';
import type { Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { seed } from './clinic-patient-filters';
import { signUpUser } from './seed';

const PATIENTS = 10_000;
const RUNS = 5;
const TARGET_SECONDS = 2;
const MIB = 1024 * 1024;

const residentMiB = (pid: number) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** One download read to the end while the service's VmRSS is sampled every 20 ms; its records counted. */
async function download(url: string, token: string, pid: number) {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const baseline = residentMiB(pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, residentMiB(pid))), 20);
  const start = performance.now();
  let bytes = 0;
  let records = 0;
  let ok = false;
  try {
    const response = await fetch(url, { headers: { 'x-tidepool-session-token': token, accept: 'text/csv' } });
    // Names here hold no line breaks: each LF ends a record (counted by byte, as a CRLF may straddle two chunks).
    for await (const chunk of response.body!) {
      bytes += (chunk as Uint8Array).byteLength;
      for (const byte of chunk as Uint8Array) if (byte === 10) records += 1;
    }
    ok = response.ok;
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, residentMiB(pid));
  return { ms: performance.now() - start, bytes, records, growth: peak - baseline, baseline, ok };
}

/**
 * Issue 30: the patient list of a clinic of 10,000 patients (each with a 30-day CGM summary) as
 * CSV, every patient with every statistic of the 14-day period, sorted by time in range: the
 * time to the last byte and the service's memory growth while it streams.
 */
export async function clinicPatientCsvScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const admin = await signUpUser(env, 'csv-admin');
  const created = await fetch(`${env.app.url}/v1/clinics`, {
    method: 'POST',
    headers: { 'x-tidepool-session-token': admin.token, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'CSV Clinic', preferredBgUnits: 'mg/dL' }),
  });
  if (!created.ok) throw new Error(`creating the clinic answered ${created.status}`);
  const clinic = (await created.json()) as { id: string };
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    await seed(client, clinic.id, 'csv-patient');
  } finally {
    await client.end();
  }
  const url = `${env.app.url}/v1/clinics/${clinic.id}/patients?sort=-timeInTargetPercent&sortType=cgm`;
  const runs = [];
  for (let run = 0; run < RUNS; run += 1) runs.push(await download(url, admin.token, env.app.process.pid!));
  const bad = runs.filter((run) => !run.ok || run.records !== PATIENTS + 1);
  const times = runs.map((run) => run.ms).sort((a, b) => a - b);
  const median = times[Math.floor(RUNS / 2)]!;
  const growth = Math.max(...runs.map((run) => run.growth));
  const verdict = median / 1000 < TARGET_SECONDS ? 'within' : 'OVER';
  return [
    {
      name: `GET /v1/clinics/{id}/patients as CSV (${PATIENTS.toLocaleString('en')} patients)`,
      requestsPerSecond: 1000 / median,
      mibPerSecond: runs[0]!.bytes / MIB / (median / 1000),
      p50: median,
      p99: times[RUNS - 1]!,
      errors: bad.length,
      notes: `${RUNS} sequential; ${(runs[0]!.bytes / MIB).toFixed(1)} MiB, ${runs[0]!.records - 1} rows; peak VmRSS +${growth.toFixed(1)} MiB over ${runs[0]!.baseline.toFixed(0)} MiB; ${verdict} target < ${TARGET_SECONDS} s`,
    },
  ];
}
