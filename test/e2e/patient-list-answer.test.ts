import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { joinClinic, newClinic } from '../support/clinics';
import { eventually } from '../support/eventually';
import { cbg, uploadReadings } from '../support/glucose';
import { call } from '../support/http';

/**
 * The REST patient list is answered by the services directly (a ServiceRoute), while one
 * patient's GET still runs the GraphQL document of the patient routes: every entry of the list
 * must read byte for byte as that patient's own answer, whatever its record holds (tags, a
 * deleted tag, reviews, data sources, no email or MRN, a CGM summary, no summary).
 */
let app: TestApp;
let server: string;
let admin: TestAccount;
let clinicId: string;
const userIds: string[] = [];

const as = (token: string, path: string, init: Parameters<typeof call>[2] = {}) =>
  call(app.url, path, { token, ...init });

beforeAll(async () => {
  app = await startTestApp();
  server = await serverToken(app);
  admin = await signUp(app, 'list-admin');
  const clinic = await newClinic(app, admin);
  clinicId = clinic.id;
  const tag = async (name: string) =>
    (await as(admin.token, `/v1/clinics/${clinicId}/patient_tags`, { json: { name } })).body.id as string;
  const [kept, deleted] = [await tag('Kept'), await tag('Deleted')];
  const full = await as(admin.token, `/v1/clinics/${clinicId}/patients`, {
    json: {
      fullName: 'Full Record',
      birthDate: '1980-02-29',
      email: 'full@example.org',
      mrn: 'MRN-7',
      tags: [deleted, kept],
    },
  });
  const bare = await as(admin.token, `/v1/clinics/${clinicId}/patients`, {
    json: { fullName: 'Bare Record', birthDate: '2001-01-01' },
  });
  expect([full.status, bare.status]).toEqual([200, 200]);
  userIds.push(full.body.id, bare.body.id);
  // Two reviews, newest first.
  const review = () => as(admin.token, `/v1/clinics/${clinicId}/patients/${full.body.id}/reviews`, { method: 'PUT' });
  expect((await review()).status).toBe(200);
  expect((await review()).status).toBe(200);
  expect((await as(admin.token, `/v1/clinics/${clinicId}/patient_tags/${deleted}`, { method: 'DELETE' })).status).toBe(
    204,
  );
  const sources = await as(server, `/v1/patients/${full.body.id}/data_sources`, {
    method: 'PUT',
    json: [
      {
        providerName: 'dexcom',
        state: 'connected',
        dataSourceId: 'd'.repeat(24),
        modifiedTime: '2026-11-01T10:00:00Z',
        latestDataTime: '2026-11-20T08:30:00.5Z',
      },
      { providerName: 'abbott', state: 'pendingReconnect' },
    ],
  });
  expect(sources.status).toBe(200);
  // A patient with its own account and readings: the list shows its CGM summary.
  const reader = await signUp(app, 'list-reader');
  await joinClinic(app, clinic, admin, reader, 'Reading Patient');
  userIds.push(reader.userid);
  const start = Date.UTC(2026, 10, 20);
  await uploadReadings(
    app,
    reader.userid,
    reader.token,
    Array.from({ length: 288 }, (_, index) => cbg(start + index * 300_000, 80 + (index % 120))),
  );
  await eventually(
    async () =>
      (await as(admin.token, `/v1/clinics/${clinicId}/patients/${reader.userid}`)).body.summary?.cgmStats !== undefined,
    'the reader’s summary is made',
  );
}, 60_000);

afterAll(async () => {
  await app?.stop();
});

it('holds each patient exactly as its own GET answers it', async () => {
  const list = await as(admin.token, `/v1/clinics/${clinicId}/patients?limit=10`);
  expect(list.status).toBe(200);
  expect(list.body.meta).toEqual({ count: 3, totalCount: 3 });
  for (const userId of userIds) {
    const own = await as(admin.token, `/v1/clinics/${clinicId}/patients/${userId}`);
    expect(own.status).toBe(200);
    expect(list.text).toContain(own.text);
  }
  // What the record holds reaches the list: the kept tag only, the review, both sources, the summary.
  const [full, , reading] = userIds.map((id) => list.body.data.find((patient: { id: string }) => patient.id === id));
  expect(full.tags).toHaveLength(1);
  expect(full.reviews).toHaveLength(2);
  expect(full.dataSources.map((source: { state: string }) => source.state)).toEqual(['connected', 'pendingReconnect']);
  expect(reading.summary.cgmStats.periods['1d']).toBeDefined();
});

it('answers the list in the same bytes a second time, its statements as few as a plain page’s', async () => {
  const [first, second] = [
    await as(admin.token, `/v1/clinics/${clinicId}/patients?limit=10&sort=-fullName`),
    await as(admin.token, `/v1/clinics/${clinicId}/patients?limit=10&sort=-fullName`),
  ];
  expect(second.text).toBe(first.text);
  // The clinic with the caller's roles and its tags, then the page with its summaries, and beside
  // it the clinic's count (which is the list's, as nothing filters it).
  expect(Number(first.headers.get('x-sql-statements'))).toBe(3);
});
