import pg from 'pg';
import { load, type Measurement } from '../harness';
import { alsoWithReplica } from '../replica-rows';
import type { BenchEnvironment } from '../setup';
import { signUpUser } from './seed';
import { sqlLoad } from '../sql-load';

export const PATIENTS = 10_000;

/**
 * The clinic's 10,000 patients in one INSERT, every one tagged `Pump`, half also `Teen`; one in
 * fifty with a Dexcom link that is disconnected.
 */
async function seedPatients(
  client: pg.Client,
  clinicId: string,
  [pump, teen]: string[],
  patients = PATIENTS,
  prefix = 'tide-patient',
): Promise<void> {
  await client.query(
    `insert into clinic_patients (clinic_id, user_id, full_name, birth_date, email, tags, permissions, reviews,
                                  data_sources, created_time, updated_time)
     select $1, substr(md5($5 || n), 1, 10), 'Patient ' || n, date '1950-01-01' + (n * 7919 % 25000),
            'tide' || n || '@example.org', case when n % 2 = 0 then array[$2, $3] else array[$2] end,
            '{custodian,view,upload,note}', '[]'::jsonb,
            case when n % 50 = 0
                 then '[{"providerName":"dexcom","state":"disconnected","dataSourceId":"0123456789abcdef01234567"}]'::jsonb
            end,
            now(), now()
       from generate_series(1, $4::int) as n`,
    [clinicId, pump, teen, patients, prefix],
  );
}

/**
 * 30 days of summaries, as the summary writer leaves them: for each patient (one in 33 has none)
 * the CGM rows of the four periods and their previous periods, statistics spread by fixed
 * pseudo-random fractions of the patient number, last data over the last 30 days.
 */
async function seedStats(client: pg.Client, patients = PATIENTS, prefix = 'tide-patient'): Promise<void> {
  await client.query(
    `with base as (
       select n, substr(md5($2 || n), 1, 10) as user_id, period, previous,
              ((n * 13 + k) % 997) / 997.0 as r1, ((n * 17 + k) % 991) / 991.0 as r2,
              ((n * 19 + k) % 983) / 983.0 as r3, ((n * 23 + k) % 977) / 977.0 as r4,
              ((n * 29 + k) % 971) / 971.0 as r5, ((n * 31 + k) % 967) / 967.0 as r6,
              ((n * 37 + k) % 953) / 953.0 as r7, ((n * 41) % 947) / 947.0 as r8
         from generate_series(1, $1::int) as n,
              unnest(array['1d', '7d', '14d', '30d']) with ordinality as p(period, k),
              unnest(array[false, true]) as previous
        where n % 33 <> 0
     ), stats as (
       select *, case when r1 < 0.02 then 0.011 + r2 * 0.05 else r2 * 0.01 end as very_low,
              r4 * 0.08 * r5 as very_high
         from base
     )
     insert into glucose_period_stats (user_id, kind, period, previous, last_data, last_upload_date,
       time_in_very_low_percent, time_in_low_percent, time_in_any_low_percent, time_in_target_percent,
       time_in_target_percent_delta, time_in_high_percent, time_in_very_high_percent, time_in_extreme_high_percent,
       time_in_any_high_percent, time_cgm_use_percent, time_cgm_use_minutes, average_glucose_mmol,
       glucose_management_indicator)
     select user_id, 'cgm', period, previous, now() - r8 * interval '30 days', now() - r8 * interval '30 days',
            very_low, r3 * 0.05, very_low + r3 * 0.05, greatest(0, 1 - very_low - r3 * 0.05 - very_high - r6 * 0.3),
            r7 * 0.4 - 0.25, r6 * 0.3, very_high, case when r5 < 0.05 then 0.01 else 0 end, very_high + r6 * 0.3,
            0.5 + r4 * 0.5, (0.5 + r4 * 0.5) * 1440 * 7, 6 + r2 * 4, 6 + r3 * 2
       from stats`,
    [patients, prefix],
  );
}

/**
 * The same question written by hand, in one statement: the default categories in priority order
 * (first match wins, 100 in all) and up to 50 patients without recent data, with every field the
 * report shows.
 */
const FLOOR_SQL = `
  with candidates as materialized (
    select p.user_id, p.full_name, p.email, p.tags, p.reviews, p.data_sources, s.last_data, s.average_glucose_mmol,
           s.glucose_management_indicator, s.time_cgm_use_minutes, s.time_cgm_use_percent, s.time_in_very_low_percent,
           s.time_in_low_percent, s.time_in_any_low_percent, s.time_in_target_percent, s.time_in_target_percent_delta,
           s.time_in_high_percent, s.time_in_very_high_percent, s.time_in_extreme_high_percent,
           s.time_in_any_high_percent
      from clinic_patients p
      left join glucose_period_stats s on s.user_id = p.user_id and s.kind = 'cgm' and s.period = $3 and not s.previous
     where p.clinic_id = $1 and p.tags @> $2::text[]
  ), categorised as (
    select *, case
             when time_in_very_low_percent > 0.01 then 1
             when time_in_any_low_percent > 0.04 then 2
             when time_in_very_high_percent > 0.05 then 3
             when time_in_any_high_percent > 0.25 then 4
             when time_in_target_percent_delta < -0.15 then 5
             when time_cgm_use_percent < 0.7 then 6
             when time_in_target_percent >= 0.7 and time_cgm_use_percent >= 0.7
                  and not coalesce(time_in_any_low_percent > 0.04, false)
                  and not coalesce(time_in_very_low_percent > 0.01, false)
                  and not coalesce(time_in_any_high_percent > 0.25, false)
                  and not coalesce(time_in_very_high_percent > 0.05, false)
                  and not coalesce(time_in_extreme_high_percent >= 0.01, false) then 7
           end as category
      from candidates where last_data >= $4
  ), clinical as (
    select * from categorised where category is not null
     order by category,
              case category when 1 then -time_in_very_low_percent when 2 then -time_in_any_low_percent
                            when 3 then -time_in_very_high_percent when 4 then -time_in_any_high_percent
                            when 5 then time_in_target_percent_delta when 6 then time_cgm_use_percent
                            else -time_in_target_percent end,
              lower(full_name), user_id
     limit 100
  ), no_data as (
    select *, 0 as category from candidates
     where last_data is null
        or (last_data < now() - interval '8 hours'
            and (last_data < $4 or exists (select 1 from jsonb_array_elements(data_sources) d
                                           where d->>'providerName' = 'dexcom' and d->>'state' <> 'connected')))
     order by last_data nulls first, lower(full_name), user_id
     limit 50
  )
  select * from clinical union all select * from no_data`;

/** A dashboard report, not a hot path: a few clinicians at once rather than the harness's 16 connections. */
const CONNECTIONS = 4;

/** A clinic of `patients` with 30 days of summaries and its tags, seeded in SQL; its admin's headers. */
export async function seededTideClinic(
  env: Pick<BenchEnvironment, 'app' | 'databaseUrl'>,
  patients = PATIENTS,
  prefix = 'tide-patient',
): Promise<{ clinicId: string; pumpTag: string; headers: Record<string, string> }> {
  const admin = await signUpUser(env, 'tide-admin');
  const headers = { 'x-tidepool-session-token': admin.token, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${env.app.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const clinic = await post('/v1/clinics', { name: 'TIDE Bench Clinic', preferredBgUnits: 'mg/dL' });
  const tags = [];
  for (const name of ['Pump', 'Teen']) tags.push((await post(`/v1/clinics/${clinic.id}/patient_tags`, { name })).id);
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    await seedPatients(client, clinic.id, tags, patients, prefix);
    await seedStats(client, patients, prefix);
    // As autovacuum would after a bulk load.
    await client.query('vacuum analyze clinic_patients');
    await client.query('vacuum analyze glucose_period_stats');
    // The report reads the clinic's copy through its partial indexes; without statistics on it the
    // planner picks nested loops that take seconds.
    await client.query('vacuum analyze clinic_patient_period_stats');
  } finally {
    await client.end();
  }
  return { clinicId: clinic.id, pumpTag: tags[0]!, headers };
}

/** Issue 15: the TIDE report of a clinic of 10,000 patients with 30 days of summaries. */
export async function tideScenarios(
  env: Pick<BenchEnvironment, 'app' | 'databaseUrl' | 'replica'>,
): Promise<Measurement[]> {
  const { clinicId, pumpTag, headers } = await seededTideClinic(env);
  return tideRows(env, clinicId, pumpTag, headers, PATIENTS, [CONNECTIONS, 1]);
}

/**
 * The TIDE report of a clinic of `patients` (seeded by seedPatients and seedStats) beside its
 * floor, at each of `concurrencies` requests at once: a few clinicians at once (throughput), and
 * one at a time (the latency a clinician sees). With a replica in the run, also read from it.
 */
export async function tideRows(
  env: Pick<BenchEnvironment, 'app' | 'databaseUrl' | 'replica'>,
  clinicId: string,
  pumpTag: string,
  headers: Record<string, string>,
  patients: number,
  concurrencies: number[],
): Promise<Measurement[]> {
  // A clinician's default dashboard: the last 14 days, data within the last 14 days, the `Pump` tag.
  const cutoff = new Date(Date.now() - 14 * 24 * 3_600_000).toISOString();
  const url = `${env.app.url}/v1/clinics/${clinicId}/tide_report?period=14d&tags=${pumpTag}&lastDataCutoff=${encodeURIComponent(cutoff)}`;
  const response = await fetch(url, { headers });
  const body = (await response.json()) as { results: Record<string, unknown[]> };
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  const sizes = Object.entries(body.results).map(([key, entries]) => `${key} ${entries.length}`);
  const notes = `${response.headers.get('x-sql-statements')} SQL statements/request; ${sizes.join(', ')}`;
  const rows: Measurement[] = [];
  for (const connections of concurrencies) {
    const floor = await sqlLoad(
      `floor: one hand-written SQL statement, TIDE report (${patients.toLocaleString('en')} patients, ${connections} at once)`,
      env.databaseUrl,
      FLOOR_SQL,
      [clinicId, `{${pumpTag}}`, '14d', cutoff],
      connections,
    );
    const measured = await load(
      `REST GET /v1/clinics/{id}/tide_report (${patients.toLocaleString('en')} patients, 14d, ${connections} at once)`,
      { url, headers, connections, cpuOf: env.app.process },
      floor.name,
    );
    measured.notes = notes;
    rows.push(floor, measured, ...(await alsoWithReplica(env, measured, { url, headers, connections })));
  }
  return rows;
}
