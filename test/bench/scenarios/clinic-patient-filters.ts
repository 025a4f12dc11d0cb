import pg from 'pg';
import { EXPORTED_STAT_NAMES, STAT_COLUMNS } from '../../../src/domains/glucose/period-stats';
import { bucketsOf } from '../../../src/domains/glucose/summary/buckets';
import { summarise } from '../../../src/domains/glucose/summary/periods';
import { clinicCopyTexts, type ClinicCopyTexts } from '../../../src/domains/glucose/clinic-copy';
import { load, type Measurement } from '../harness';
import type { BenchEnvironment } from '../setup';
import { signUpUser } from './seed';
import { sqlLoad } from '../sql-load';

const PATIENTS = 10_000;
/** Users of other clinics with summaries too: the statistics table holds more than this clinic. */
const OTHER_USERS = 30_000;
const PERIODS = ['1d', '7d', '14d', '30d'];
const DAY = 86_400_000;

/** A 30-day CGM summary (every period and its previous period) and its clinic copy, as the service stores them. */
function sampleSummary(): { periods: string; clinicCopy: ClinicCopyTexts } {
  const end = Date.UTC(2026, 10, 20);
  const readings = Array.from({ length: 30 * 288 }, (_, index) => ({
    time: end - 30 * DAY + index * 300_000,
    mmol: 4 + ((index * 37) % 90) / 10,
    minutes: 5,
  }));
  const summary = summarise(bucketsOf(readings, 'cgm'), 'cgm');
  return { periods: JSON.stringify(summary), clinicCopy: clinicCopyTexts(summary, 'cgm') };
}

/**
 * The clinic's 10,000 patients, each an account with a 30-day CGM summary: its JSON (what the list shows)
 * and its eight period-statistics rows (what the list filters and sorts on, copied into the
 * clinic's statistics by the database's triggers), straight in SQL.
 * Statistic values vary by patient and period: very-low time from 0 to 5%, CGM use from 50 to
 * 100%, time in range from 40 to 100%, every other statistic a value of its own.
 */
export async function seed(
  client: pg.Client,
  clinicId: string,
  prefix = 'filter-patient',
  patients = PATIENTS,
): Promise<void> {
  if (!/^[a-z-]+$/.test(prefix)) throw new Error(`seed prefix ${prefix}: lowercase letters and dashes only`);
  await client.query(
    `insert into clinic_patients (clinic_id, user_id, full_name, birth_date, email, mrn, tags, permissions, reviews,
                                  last_reviewed, created_time, updated_time)
     select $1, substr(md5('${prefix}' || n), 1, 10), 'Patient ' || n, date '1940-01-01' + (n * 7919 % 29000),
            'filter' || n || '@example.org', 'MRN' || lpad(n::text, 8, '0'), '{}', '{custodian,view,upload,note}',
            '[]'::jsonb, null, now(), now()
     from generate_series(1, $2::int) as n`,
    [clinicId, patients],
  );
  // Each patient is an account, as the service's own patients always are: the access log asks
  // which subjects are accounts once an hour per subject, and would ask about these on every page.
  await client.query(
    `insert into users (id, created_time) select substr(md5('${prefix}' || n), 1, 10), now()
       from generate_series(1, $1::int) as n`,
    [patients],
  );
  const lastData = new Date(Date.UTC(2026, 10, 20)).toISOString();
  const summary = sampleSummary();
  await client.query(
    `insert into glucose_summaries (user_id, kind, last_data, first_data, last_upload_date, last_updated_date,
                                    outdated_since, pending_from, periods, clinic_periods, clinic_offset_periods,
                                    schema_version)
     select substr(md5('${prefix}' || n), 1, 10), 'cgm', $2::timestamptz, $2::timestamptz - interval '30 days',
            $2::timestamptz, now(), null, null, $1::jsonb, $4, $5, 6
     from generate_series(1, $3::int) as n`,
    [summary.periods, lastData, patients, summary.clinicCopy.current, summary.clinicCopy.previous],
  );
  const special: Record<string, string> = {
    timeInVeryLowPercent: '(h % 500) / 10000.0',
    timeCGMUsePercent: '0.5 + (h / 500 % 500) / 1000.0',
    timeInTargetPercent: '0.4 + (h / 250000 % 600) / 1000.0',
  };
  const columns = EXPORTED_STAT_NAMES.map((name) => STAT_COLUMNS[name]);
  const values = EXPORTED_STAT_NAMES.map((name, index) => special[name] ?? `(h / ${index + 1} % 1000) / 7.0`);
  await client.query(
    `insert into glucose_period_stats (user_id, kind, period, previous, last_data, last_upload_date,
                                       ${columns.join(', ')}, glycemia_risk_zone)
     select user_id, 'cgm', period, previous, $1::timestamptz, $1::timestamptz, ${values.join(', ')}, 'A'
     from (select substr(md5(case when n <= $2 then '${prefix}' else '${prefix}-other' end || n), 1, 10) as user_id,
                  period, previous,
                  ('x' || substr(md5(n || period || previous::text), 1, 8))::bit(32)::int & 2147483647 as h
           from generate_series(1, $2::int + $3::int) as n,
                unnest($4::text[]) as period, unnest(array[false, true]) as previous) as rows`,
    [lastData, patients, OTHER_USERS, PERIODS],
  );
  await client.query('vacuum analyze clinic_patients');
  await client.query('vacuum analyze glucose_summaries');
  await client.query('vacuum analyze glucose_period_stats');
  await client.query('vacuum analyze clinic_patient_period_stats');
}

/** The same period as the service reads it: the clinic's copy of the statistics (patient-filters.ts summarySql). */
const PERIOD = `s.clinic_id = $1 and s.kind = 'cgm' and s.period = '14d' and not s.previous`;
const FILTER = 's.time_in_very_low_percent > $2 and s.time_cgm_use_percent > $3';

/**
 * The floor: one statement answering the same page along the plan the service takes
 * (patient-list.repository.ts, selectPages), so the ratio measures the service and not the plan.
 * The matches are counted and the page found on the copy's list index, the page's records read by
 * key, then its summaries' clinic copies (the text the answer carries) and the clinic's total.
 * The service reads the count and the page in statements side by side, and keeps what the floor
 * reads again each time: the summaries' texts (clinic-copy-cache.ts), the clinic's total and the
 * filter's count (clinic-totals.ts), each kept current by PostgreSQL's notices. A row beside
 * each shows the list whose count is read again (filteredListRows).
 */
const FLOOR_SQL = `with counted as (
      select count(*) as count from clinic_patient_period_stats s where ${PERIOD} and ${FILTER}),
    found as (
      select s.user_id, coalesce(s.time_in_target_percent, '-Infinity'::float8) as sort_key
        from clinic_patient_period_stats s
       where ${PERIOD} and ${FILTER}
       order by coalesce(s.time_in_target_percent, '-Infinity'::float8) desc, s.user_id desc limit 51)
    select p.user_id, p.full_name, p.birth_date::text, p.email, p.mrn, p.tags, p.permissions, p.reviews,
           p.last_reviewed, p.created_time, p.updated_time, p.data_sources, found.sort_key::text as sort_value,
           g.kind, g.last_data, g.first_data, g.last_upload_date, g.last_updated_date, g.clinic_periods,
           counted.count, (select count(*) from clinic_patients where clinic_id = $1) as total_count
      from found join clinic_patients p on p.clinic_id = $1 and p.user_id = found.user_id
      left join glucose_summaries g on g.user_id = found.user_id and g.periods is not null
     cross join counted
     order by found.sort_key desc, found.user_id desc`;

/** FLOOR_SQL's parameters: the URL's filters (time very low > 1%, CGM use > 70%) of a clinic. */
const floorParams = (clinicId: string) => [clinicId, 0.01, 0.7];

interface ServedPage {
  data: { id: string }[];
  meta: { count: number; totalCount: number };
}

/** The floor must answer the page the service answers (patients in order, both counts), or the ratio compares two questions. */
async function expectFloorAnswers(databaseUrl: string, clinicId: string, served: ServedPage): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ user_id: string; count: string; total_count: string }>(
      FLOOR_SQL,
      floorParams(clinicId),
    );
    const floor = {
      ids: rows.slice(0, 50).map((row) => row.user_id),
      count: Number(rows[0]?.count),
      total: Number(rows[0]?.total_count),
    };
    const service = {
      ids: served.data.map((patient) => patient.id),
      count: served.meta.count,
      total: served.meta.totalCount,
    };
    if (JSON.stringify(floor) !== JSON.stringify(service))
      throw new Error(
        `the floor answers another page than the service: ${JSON.stringify({ floor, service }).slice(0, 500)}`,
      );
  } finally {
    await client.end();
  }
}

/**
 * The filtered, sorted page of a clinic of `patients` (seeded by `seed`) beside its floor, at each
 * of `concurrencies` requests at once: under load, and one at a time (the latency a clinician sees).
 */
export async function filteredListRows(
  env: Pick<BenchEnvironment, 'app' | 'databaseUrl'>,
  clinicId: string,
  headers: Record<string, string>,
  patients: number,
  concurrencies: number[],
): Promise<Measurement[]> {
  const path = (veryLow: string) =>
    `/v1/clinics/${clinicId}/patients?cgm.timeInVeryLowPercent=${encodeURIComponent(`>${veryLow}`)}` +
    `&cgm.timeCGMUsePercent=${encodeURIComponent('>0.7')}&sort=-timeInTargetPercent&sortType=cgm&limit=50`;
  const url = `${env.app.url}${path('0.01')}`;
  // Statistics here are whole hundredths of a percent, so a bound a hair above 1% holds the same
  // patients under a filter nothing has counted yet: what a list costs when its clinic's
  // statistics changed since the last (a patient uploaded), and its count is read again.
  let uncounted = 0;
  const notCountedYet = () => path(`0.01${String((uncounted += 1)).padStart(9, '0')}`);
  const response = await fetch(url, { headers });
  const body = (await response.json()) as { data: unknown[]; meta: { count: number; totalCount: number } };
  if (!response.ok || body.meta.totalCount !== patients || body.data.length !== 50)
    throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  await expectFloorAnswers(env.databaseUrl, clinicId, body as ServedPage);
  // The first read of a page also reads the summaries' texts the service has not kept; the run repeats the page.
  const again = await fetch(url, { headers });
  await again.arrayBuffer();
  const statements = `${again.headers.get('x-sql-statements')} SQL statements/request (${response.headers.get('x-sql-statements')} the first time)`;
  const notes = `${statements}, ${body.meta.count} matches`;
  const rows: Measurement[] = [];
  for (const connections of concurrencies) {
    const floor = await sqlLoad(
      `floor: one SQL statement, 2 summary filters + summary sort, page of 50 + summaries + counts (${patients.toLocaleString('en')} patients, ${connections} at once)`,
      env.databaseUrl,
      FLOOR_SQL,
      floorParams(clinicId),
      connections,
    );
    const listed = await load(
      `REST GET /v1/clinics/{id}/patients?cgm.timeInVeryLowPercent&cgm.timeCGMUsePercent&sort=-timeInTargetPercent&limit=50 (${patients.toLocaleString('en')} patients, ${connections} at once)`,
      { url, headers, connections, cpuOf: env.app.process },
      floor.name,
    );
    listed.notes = notes;
    const recounted = await load(
      `the same, its count read again each request (a filter not yet counted: ${connections} at once)`,
      { url, headers, connections, cpuOf: env.app.process, nextPath: notCountedYet },
      floor.name,
    );
    rows.push(floor, listed, recounted);
  }
  return rows;
}

/**
 * Issue 15: the patient list of a clinic of 10,000 patients filtered on two summary statistics
 * and sorted by a third, 50 a page, beside one hand-written statement answering the same page
 * (the rows, their summaries and both counts).
 */
export async function clinicPatientFilterScenarios(env: BenchEnvironment): Promise<Measurement[]> {
  const admin = await signUpUser(env, 'filter-admin');
  const headers = { 'x-tidepool-session-token': admin.token, 'content-type': 'application/json' };
  const created = await fetch(`${env.app.url}/v1/clinics`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Filter Clinic', preferredBgUnits: 'mg/dL' }),
  });
  if (!created.ok) throw new Error(`creating the clinic answered ${created.status}`);
  const clinic = (await created.json()) as { id: string };
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    await seed(client, clinic.id);
    // Twice: the first run reads the partition from disk, the second finds it cached.
    for (const run of ['first run', 'second run']) {
      const explained = await client.query(
        `explain (analyze, buffers, costs off) ${FLOOR_SQL}`,
        floorParams(clinic.id),
      );
      const plan = explained.rows.map((row) => row['QUERY PLAN'] as string).join('\n');
      console.error(`EXPLAIN of the floor, the service's plan in one statement (10,000 patients), ${run}:\n${plan}`);
    }
  } finally {
    await client.end();
  }

  const rows = await filteredListRows(env, clinic.id, headers, PATIENTS, [16, 1]);
  // Reference: the same page size without summary filters, to tell the filters' cost from the page's.
  const plain = await load(
    'REST GET /v1/clinics/{id}/patients?sort=-fullName&limit=50 (reference: no summary filter)',
    {
      url: `${env.app.url}/v1/clinics/${clinic.id}/patients?sort=-fullName&limit=50`,
      headers,
      cpuOf: env.app.process,
    },
  );
  rows.push(plain);
  return rows;
}
