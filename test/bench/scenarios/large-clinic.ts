import pg from 'pg';
import type { Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { filteredListRows, seed } from './clinic-patient-filters';
import { signUpUser } from './seed';
import { seededTideClinic, tideRows } from './tide';

const BASELINE = 10_000;

/** BENCH_SCALE: the patients of the large clinic (e.g. 100000); unset, the scenario is skipped. */
function scale(): number | undefined {
  const raw = process.env.BENCH_SCALE;
  if (raw === undefined || raw === '') return undefined;
  const patients = Number(raw);
  if (!Number.isInteger(patients) || patients <= BASELINE)
    throw new Error(`BENCH_SCALE must be a whole number above ${BASELINE}, got "${raw}"`);
  return patients;
}

/**
 * A clinic of `patients` with 30-day summaries for the filtered list, seeded in SQL; its admin's
 * headers, logged in again after the seed: on a busy machine seeding 100,000 patients outlasts
 * the session token (ACCESS_TOKEN_TTL, 5 minutes).
 */
async function seededFilterClinic(env: BenchEnvironment, patients: number, prefix: string) {
  const admin = await signUpUser(env, 'scale-admin');
  const headers = { 'x-tidepool-session-token': admin.token, 'content-type': 'application/json' };
  const created = await fetch(`${env.app.url}/v1/clinics`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: `Clinic of ${patients}`, preferredBgUnits: 'mg/dL' }),
  });
  if (!created.ok) throw new Error(`creating the clinic answered ${created.status}`);
  const { id } = (await created.json()) as { id: string };
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    await seed(client, id, prefix, patients);
  } finally {
    await client.end();
  }
  const login = await fetch(`${env.app.url}/auth/login`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${admin.email}:${admin.password}`).toString('base64')}` },
  });
  if (!login.ok) throw new Error(`logging in again answered ${login.status}`);
  return {
    clinicId: id,
    headers: { ...headers, 'x-tidepool-session-token': login.headers.get('x-tidepool-session-token')! },
  };
}

/** The row of `rows` measuring the service (not its floor). */
const serviceRow = (rows: Measurement[]) => rows.find((row) => row.floor !== undefined)!;

/** Notes how a row's median grew from the baseline clinic's: sub-linear growth is the target. */
function noteGrowth(large: Measurement, baseline: Measurement, factor: number, target: string): void {
  const growth = large.p50 / baseline.p50;
  large.notes = `${large.notes ?? ''}; p50 ×${growth.toFixed(1)} for ×${factor} patients; ${target}`;
}

/**
 * Issue 33: a clinic of BENCH_SCALE patients beside one of 10,000 in the same run, one clinician
 * at a time (the latency a clinician sees): TIDE (target p50 < 250 ms) and the filtered, sorted
 * patient list (target p50 < 100 ms), each with its floor. Cost should grow less than the clinic.
 */
export async function largeClinicScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const patients = scale();
  if (patients === undefined) {
    console.error('large-clinic: skipped (set BENCH_SCALE, e.g. BENCH_SCALE=100000)');
    return [];
  }
  const factor = patients / BASELINE;
  const rows: Measurement[] = [];
  const measured: Record<'tide' | 'list' | 'recounted', Measurement[]> = { tide: [], list: [], recounted: [] };
  // Patients' ids are the first 10 hex digits of md5(prefix || n), as Tidepool's ids look; among
  // a few hundred thousand, two prefixes' ids can collide (`scale-large-tide` and
  // `scale-large-list` do, at 100,000), so these were checked against every other scenario's at
  // BENCH_SCALE=100000; another scale may need its own.
  for (const [size, prefix] of [
    [BASELINE, 'scale-base'],
    [patients, 'scale-big'],
  ] as const) {
    const tide = await seededTideClinic(env, size, `${prefix}-tide`);
    const tideMeasured = await tideRows(env, tide.clinicId, tide.pumpTag, tide.headers, size, [1]);
    const list = await seededFilterClinic(env, size, `${prefix}-list`);
    const listMeasured = await filteredListRows(env, list.clinicId, list.headers, size, [1]);
    measured.tide.push(serviceRow(tideMeasured));
    // The list with its count kept, then with it read again (filteredListRows' order).
    const [listed, recounted] = listMeasured.filter((row) => row.floor !== undefined);
    measured.list.push(listed!);
    measured.recounted.push(recounted!);
    rows.push(...tideMeasured, ...listMeasured);
  }
  noteGrowth(measured.tide[1]!, measured.tide[0]!, factor, 'target p50 < 250 ms');
  noteGrowth(measured.list[1]!, measured.list[0]!, factor, 'target p50 < 100 ms');
  noteGrowth(measured.recounted[1]!, measured.recounted[0]!, factor, 'target p50 < 100 ms');
  return rows;
}
