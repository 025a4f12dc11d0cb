import pg from 'pg';
import { PATIENT_ORDER, PATIENT_SEARCH_TEXT } from '../../../src/domains/clinics/clinic-patient.entity';
import { load, type Measurement } from '../harness';
import { alsoWithReplica } from '../replica-rows';
import type { BenchEnvironment } from '../setup';
import { signUpUser } from './seed';
import { sqlLoad } from '../sql-load';

const PATIENTS = 50_000;
const FIRST_NAMES = ['Olivia', 'Liam', 'Emma', 'Noah', 'Ava', 'Elijah', 'Sofia', 'Mateo', 'Amara', 'Kenji'];
const LAST_NAMES = ['Garcia', 'Smith', 'Nguyen', 'Okafor', 'Rossi', 'Müller', 'Kowalski', 'Haddad', 'Tanaka', 'Silva'];

/**
 * The clinic's 50,000 patients in one INSERT: names from the lists above with a number, an email
 * and an MRN each, birth dates over 80 years, half reviewed at some time in the last year, and
 * each of five tags on about a fifth of them.
 */
async function seedPatients(client: pg.Client, clinicId: string, tagIds: string[]): Promise<void> {
  await client.query(
    `insert into clinic_patients (clinic_id, user_id, full_name, birth_date, email, mrn, tags, permissions, reviews,
                                  last_reviewed, created_time, updated_time)
     select $1, substr(md5('bench-patient' || n), 1, 10),
            ($3::text[])[1 + n % 10] || ' ' || ($4::text[])[1 + (n / 10) % 10] || ' ' || n,
            date '1940-01-01' + (n * 7919 % 29000),
            'patient' || n || '@example.org', 'MRN' || lpad(n::text, 8, '0'),
            array(select t from unnest($2::text[]) with ordinality as x(t, i) where (n + i) % 5 = 0),
            '{custodian,view,upload,note}', '[]'::jsonb,
            case when n % 2 = 0 then now() - (n::bigint * 104729 % 31536000) * interval '1 second' end,
            now(), now()
     from generate_series(1, $5::int) as n`,
    [clinicId, tagIds, FIRST_NAMES, LAST_NAMES, PATIENTS],
  );
  // As autovacuum would after a bulk load: counts read the visibility map instead of every row.
  await client.query('vacuum analyze clinic_patients');
}

const COUNTS = (filter: string) =>
  `(select count(*) from clinic_patients where clinic_id = $1${filter}) as count,
   (select count(*) from clinic_patients where clinic_id = $1) as total_count`;

/** Issue 13: the patient list of a clinic of 50,000 patients, searched and sorted by last review. */
export async function clinicPatientScenarios(
  env: Pick<BenchEnvironment, 'app' | 'databaseUrl' | 'replica'>,
): Promise<Measurement[]> {
  const admin = await signUpUser(env, 'clinic-admin');
  const headers = { 'x-tidepool-session-token': admin.token, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${env.app.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const clinic = await post('/v1/clinics', { name: 'Bench Clinic', preferredBgUnits: 'mg/dL' });
  const tags = [];
  for (const name of ['Pump', 'CGM', 'Type 1', 'Type 2', 'Pediatric'])
    tags.push((await post(`/v1/clinics/${clinic.id}/patient_tags`, { name })).id);
  const client = new pg.Client({ connectionString: env.databaseUrl });
  await client.connect();
  try {
    await seedPatients(client, clinic.id, tags);
  } finally {
    await client.end();
  }

  const listUrl = `${env.app.url}/v1/clinics/${clinic.id}/patients`;
  const statements = async (url: string) => {
    const response = await fetch(url, { headers });
    const body = (await response.json()) as { data: unknown[]; meta: { count: number; totalCount: number } };
    if (!response.ok || body.meta.totalCount !== PATIENTS || !body.data.length)
      throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
    return `${response.headers.get('x-sql-statements')} SQL statements/request, ${body.meta.count} matches`;
  };

  // A clinician typing part of a name: about 1 patient in 100 matches.
  const search = 'olivia garc';
  const searchFloor = await sqlLoad(
    'floor: one SQL statement, search page + counts',
    env.databaseUrl,
    `select clinic_id, user_id, full_name, birth_date::text, email, mrn, tags, permissions, reviews, last_reviewed,
            created_time, updated_time, ${COUNTS(` and ${PATIENT_SEARCH_TEXT} like $2`)}
       from clinic_patients where clinic_id = $1 and ${PATIENT_SEARCH_TEXT} like $2 order by user_id limit 10`,
    [clinic.id, `%${search}%`],
  );
  const searchUrl = `${listUrl}?search=${encodeURIComponent(search)}`;
  const searched = await load(
    `REST GET /v1/clinics/{id}/patients?search (50,000 patients)`,
    { url: searchUrl, headers },
    searchFloor.name,
  );
  searched.notes = await statements(searchUrl);
  const searchedWithReplica = await alsoWithReplica(env, searched, { url: searchUrl, headers });

  const sortFloor = await sqlLoad(
    'floor: one SQL statement, -lastReviewed page of 50 + counts',
    env.databaseUrl,
    `select clinic_id, user_id, full_name, birth_date::text, email, mrn, tags, permissions, reviews, last_reviewed,
            created_time, updated_time, ${COUNTS('')}
       from clinic_patients where clinic_id = $1 order by ${PATIENT_ORDER.lastReviewed} desc, user_id desc limit 50`,
    [clinic.id],
  );
  const sortUrl = `${listUrl}?sort=-lastReviewed&limit=50`;
  const sorted = await load(
    'REST GET /v1/clinics/{id}/patients?sort=-lastReviewed&limit=50',
    { url: sortUrl, headers },
    sortFloor.name,
  );
  sorted.notes = await statements(sortUrl);
  const sortedWithReplica = await alsoWithReplica(env, sorted, { url: sortUrl, headers });
  return [searchFloor, searched, ...searchedWithReplica, sortFloor, sorted, ...sortedWithReplica];
}
