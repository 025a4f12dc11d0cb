/**
 * The demo clinic of `npm run seed`: realistic patients with 30 days of 5-minute CGM readings
 * each, uploaded through the running service's own API (so every rule and summary applies).
 * Seeding again duplicates nothing: the clinic, its patients and their upload sessions are found
 * by name and MRN, and readings carry an `origin.id` that replaces rather than repeats.
 */
import { ConcurrencyLimit } from '../kernel/concurrency-limit';

const CLINIC_NAME = 'Islet Demo Clinic';
const ADMIN_EMAIL = 'demo-admin@islet.example';
const SEED_CLIENT = 'org.islet.seed';
const DAYS = 30;
const FIVE_MINUTES = 5 * 60_000;
const TAGS = ['Type 1', 'Type 2', 'Pump', 'New patient'];
/**
 * Patients seeded at once: fewer than the service's database pool (10), so other requests still
 * get a connection. Eight kept both cores busy through the service's garbage collection (with
 * the heap bound of `npm start`, 30 patients took 25-32 s four at once, 11-17 s eight at once;
 * sixteen were no faster).
 */
const PATIENTS_AT_ONCE = 8;
const FIRST = ['Olivia', 'Liam', 'Amara', 'Kenji', 'Sofia', 'Mateo', 'Noor', 'Elias', 'Ines', 'Tomás', 'Ava', 'Yusuf'];
const LAST = ['Garcia', 'Nguyen', 'Okafor', 'Rossi', 'Müller', 'Kowalski', 'Haddad', 'Tanaka', 'Silva', 'Dubois'];

interface ClinicJson {
  id: string;
  name: string;
  shareCode: string;
  patientTags?: { id: string; name: string }[];
}
interface Identified {
  id: string;
}

class Api {
  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}

  async call<T>(method: string, path: string, body?: unknown, expected = [200, 201]): Promise<T> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { 'x-tidepool-session-token': this.token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!expected.includes(response.status))
      throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

/** A small deterministic random source, so each demo patient looks the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * What makes each demo patient stand out, in the order of the TIDE report's default categories,
 * so that every category of the demo report has patients: one profile per patient in turn.
 */
export const DEMO_PROFILES = [
  'veryLow',
  'anyLow',
  'veryHigh',
  'anyHigh',
  'dropInTimeInTarget',
  'lowCgmUse',
  'meetingTargets',
  'stale',
] as const;
type Profile = (typeof DEMO_PROFILES)[number];

const DAY = 86_400_000;
/** A stale patient's data stopped this long ago: older than the demo report's week of recency. */
const STALE_FOR = 10 * DAY;
const RECENT = 14 * DAY;

/** The profile's mg/dL at `hour` of a day `ago` ms before now, or undefined to leave that reading out. */
function shape(profile: Profile, hour: number, ago: number, usual: number): number | undefined {
  const between = (from: number, to: number) => hour >= from && hour < to;
  switch (profile) {
    case 'veryLow': // 4% of each day below 54 mg/dL
      return between(15, 16) ? 48 : usual;
    case 'anyLow': // 5% of each day at 54–69 mg/dL, none below 54
      return between(15, 16.25) ? 62 : usual;
    case 'veryHigh': // 8% of each day above 250 mg/dL
      return between(20, 22) ? 290 : usual;
    case 'anyHigh': // 29% of each day at 181–250 mg/dL
      return between(17, 24) ? 210 : usual;
    case 'dropInTimeInTarget': // 21% of each of the last 14 days above range, after 14 days in range
      return ago < RECENT && between(16, 21) ? 205 : usual;
    case 'lowCgmUse': // no sensor at night for the last 14 days: 58% of the time worn
      return ago < RECENT && between(0, 10) ? undefined : usual;
    case 'stale':
      return ago < STALE_FOR ? undefined : usual;
    case 'meetingTargets':
      return usual;
  }
}

/**
 * A patient's readings in mg/dL every 5 minutes: a day in range of their own (a baseline, meal
 * rises after 7:30, 12:30 and 19:00, a small dawn rise, noise), changed by the patient's profile.
 */
function readingsOf(patient: number, from: number): { time: number; mgdl: number }[] {
  const next = random(patient + 1);
  const profile = DEMO_PROFILES[patient % DEMO_PROFILES.length]!;
  const baseline = 100 + next() * 20;
  const swing = 30 + next() * 20;
  const now = from + DAYS * DAY;
  const readings = [];
  for (let index = 0; index < DAYS * 288; index += 1) {
    const time = from + index * FIVE_MINUTES;
    const hour = (time / 3_600_000) % 24;
    const meal = [7.5, 12.5, 19].reduce((sum, at) => {
      const since = hour - at;
      return since > 0 && since < 3 ? sum + swing * Math.sin((since / 3) * Math.PI) : sum;
    }, 0);
    const dawn = hour > 4 && hour < 7 ? 10 : 0;
    const usual = baseline + meal + dawn + (next() - 0.5) * 16;
    const mgdl = shape(profile, hour, now - time, usual);
    if (mgdl !== undefined) readings.push({ time, mgdl: Math.round(mgdl) });
  }
  return readings;
}

async function serverToken(base: string, secret: string): Promise<string> {
  const response = await fetch(`${base}/auth/serverlogin`, {
    method: 'POST',
    headers: { 'x-tidepool-server-name': 'seed', 'x-tidepool-server-secret': secret },
  });
  if (response.status !== 200)
    throw new Error(`server login answered ${response.status}: is SERVER_SECRET the service's?`);
  return response.headers.get('x-tidepool-session-token')!;
}

/** The demo admin's token: signed up on the first run, signed in afterwards. */
async function adminToken(base: string, password: string): Promise<string> {
  const signUp = await fetch(`${base}/auth/user`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ADMIN_EMAIL, emails: [ADMIN_EMAIL], password }),
  });
  if (signUp.status === 201) return signUp.headers.get('x-tidepool-session-token')!;
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${ADMIN_EMAIL}:${password}`).toString('base64')}` },
  });
  if (login.status !== 200)
    throw new Error(`the demo admin ${ADMIN_EMAIL} exists with another password (DEMO_ADMIN_PASSWORD)`);
  return login.headers.get('x-tidepool-session-token')!;
}

export interface DemoOptions {
  /** The running service. */
  base: string;
  serverSecret: string;
  adminPassword: string;
  patients: number;
  /** Called after each patient is complete. */
  onPatient: () => void;
}

/** The seeded clinic, with the ids of its patient tags by name. */
export interface DemoClinic {
  id: string;
  name: string;
  shareCode: string;
  tagIds: Map<string, string>;
}

/** Where a patient is seeded: the clinic, its tags, the patients seeded before (by MRN), the first reading's time. */
interface SeedTarget {
  clinicId: string;
  tagIds: Map<string, string>;
  existing: Map<string, string>;
  from: number;
}

/** Seeds patient `index`: the clinic's patient (unless already there), its upload and its readings. */
async function seedPatient(server: Api, { clinicId, tagIds, existing, from }: SeedTarget, index: number) {
  const mrn = `DEMO-${String(index + 1).padStart(5, '0')}`;
  const next = random(1000 + index);
  // Tags go by blocks of every profile, so that each tag's TIDE report has them all.
  const patientId =
    existing.get(mrn) ??
    (
      await server.call<Identified>('POST', `/v1/clinics/${clinicId}/patients`, {
        fullName: `${FIRST[index % FIRST.length]} ${LAST[Math.floor(index / FIRST.length) % LAST.length]} ${index + 1}`,
        birthDate: `${1950 + Math.floor(next() * 60)}-0${1 + Math.floor(next() * 9)}-1${Math.floor(next() * 9)}`,
        mrn,
        tags: [
          tagIds.get(TAGS[Math.floor(index / DEMO_PROFILES.length) % 2])!,
          ...(next() < 0.4 ? [tagIds.get('Pump')!] : []),
        ],
      })
    ).id;
  const datasets = await server.call<(Identified & { client?: { name: string } })[]>(
    'GET',
    `/v1/users/${patientId}/datasets`,
  );
  const datasetId =
    datasets.find((dataset) => dataset.client?.name === SEED_CLIENT)?.id ??
    (
      await server.call<{ data: Identified }>('POST', `/v1/users/${patientId}/datasets`, {
        dataSetType: 'continuous',
        client: { name: SEED_CLIENT, version: '1.0.0' },
        deviceId: `demo-cgm-${index + 1}`,
        deviceTags: ['cgm'],
      })
    ).data.id;
  const readings = readingsOf(index, from).map(({ time, mgdl }) => ({
    type: 'cbg',
    time: new Date(time).toISOString(),
    value: mgdl,
    units: 'mg/dL',
    sampleInterval: 300000,
    origin: { id: `${patientId}-${time}` },
  }));
  for (let start = 0; start < readings.length; start += 1000)
    await server.call('POST', `/v1/datasets/${datasetId}/data`, readings.slice(start, start + 1000));
}

/** Seeds the demo clinic through the service's API; answers the clinic. */
export async function seedDemoClinic({
  base,
  serverSecret: secret,
  adminPassword,
  patients: count,
  onPatient,
}: DemoOptions): Promise<DemoClinic> {
  const server = new Api(base, await serverToken(base, secret));
  const admin = new Api(base, await adminToken(base, adminPassword));
  const clinics = await admin.call<ClinicJson[]>('GET', '/v1/clinics?limit=1000');
  const clinic =
    clinics.find((candidate) => candidate.name === CLINIC_NAME) ??
    (await admin.call<ClinicJson>('POST', '/v1/clinics', {
      name: CLINIC_NAME,
      preferredBgUnits: 'mg/dL',
      clinicType: 'provider_practice',
      timezone: 'Europe/Paris',
      phoneNumbers: [{ type: 'main', number: '+33 1 23 45 67 89' }],
    }));
  const tagIds = new Map<string, string>((clinic.patientTags ?? []).map((tag) => [tag.name, tag.id]));
  for (const name of TAGS)
    if (!tagIds.has(name))
      tagIds.set(name, (await server.call<Identified>('POST', `/v1/clinics/${clinic.id}/patient_tags`, { name })).id);

  const existing = new Map<string, string>();
  for (let offset = 0; ; offset += 1000) {
    const page = await server.call<{ data: { id: string; mrn?: string }[] }>(
      'GET',
      `/v1/clinics/${clinic.id}/patients?search=DEMO-&limit=1000&offset=${offset}`,
    );
    for (const patient of page.data) if (patient.mrn) existing.set(patient.mrn, patient.id);
    if (page.data.length < 1000) break;
  }

  const from = Math.floor(Date.now() / FIVE_MINUTES) * FIVE_MINUTES - DAYS * 288 * FIVE_MINUTES;
  // Several patients at once: each upload waits on the service's database round trips, which the
  // others' fill (on 2 cores, 30 patients took 63 s one after another).
  const limit = new ConcurrencyLimit(PATIENTS_AT_ONCE);
  await Promise.all(
    Array.from({ length: count }, (_, index) =>
      limit.run(async () => {
        await seedPatient(server, { clinicId: clinic.id, tagIds, existing, from }, index);
        onPatient();
      }),
    ),
  );
  return { id: clinic.id, name: clinic.name, shareCode: clinic.shareCode, tagIds };
}

/** The demo clinic's TIDE report for its "Type 1" patients, a week of data recency: as a REST URL and a GraphQL query. */
export function demoTideReport(base: string, clinic: DemoClinic): { restUrl: string; graphqlQuery: string } {
  const tag = clinic.tagIds.get('Type 1')!;
  const cutoff = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 7 * 86_400_000).toISOString();
  return {
    restUrl: `${base}/v1/clinics/${clinic.id}/tide_report?period=14d&tags=${tag}&lastDataCutoff=${cutoff}`,
    graphqlQuery:
      `{ clinic(id: "${clinic.id}") { tideReport(period: FOURTEEN_DAYS, tagIds: ["${tag}"], lastDataCutoff: "${cutoff}") {\n` +
      `    categories { category entries { patient { fullName } timeInTargetPercent timeInVeryLowPercent } }\n` +
      `    noData { patient { fullName } lastData } } } }`,
  };
}

/**
 * Where the service serves its playground: the `playground` link of its front door (`GET /`),
 * which is at its PUBLIC_URL; undefined where the playground is off.
 */
export async function playgroundAddress(base: string): Promise<string | undefined> {
  const response = await fetch(`${base}/`, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${base}/ answered ${response.status}`);
  const { links } = (await response.json()) as { links: { rel: string; href: string }[] };
  return links.find((link) => link.rel === 'playground')?.href;
}

/** What the seed prints when done: how to sign in, and the clinic's TIDE report through REST and the playground. */
export function demoSummary(base: string, clinic: DemoClinic, count: number, playground: string | undefined): string {
  const { restUrl, graphqlQuery } = demoTideReport(base, clinic);
  return [
    `${CLINIC_NAME} (${clinic.id}, share code ${clinic.shareCode}) has ${count} demo patients with ${DAYS} days of CGM data.`,
    `Sign in as ${ADMIN_EMAIL} (DEMO_ADMIN_PASSWORD, default islet-demo-admin) to see them.`,
    '',
    'Its TIDE report for the patients tagged "Type 1", through REST (the session token from POST /auth/login):',
    `  curl -H "X-Tidepool-Session-Token: $TOKEN" '${restUrl}'`,
    '',
    ...(playground
      ? [`and in the playground, ${playground} (signed in as ${ADMIN_EMAIL}):`, graphqlQuery.replace(/^/gm, '  ')]
      : ['The GraphQL playground is off (GRAPHQL_PLAYGROUND); POST the same query to /graphql:', graphqlQuery]),
    '',
  ].join('\n');
}
