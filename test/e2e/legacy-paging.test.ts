import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { newClinic } from '../support/clinics';
import { uploadLog } from '../support/content';
import { call } from '../support/http';

/**
 * Issue 27, item 8: a deep legacy page (`?page=&size=` or `?offset=&limit=`) was read by paging a
 * connection from the start, a hundred rows per run of the operation, so its cost grew with the
 * page number. Each list here holds more rows than one connection page, and its deepest page must
 * cost the SQL statements of its first.
 */

/** More rows than one connection page (100), so that reading up to the last page takes two. */
const ROWS = 120;
const WINDOW = { start: '2024-03-01T00:00:00Z', end: '2024-03-02T00:00:00Z' };
const DEVICE_LOG_WINDOW = 'startAtTime=2024-02-01T00:00:00Z&endAtTime=2024-04-01T00:00:00Z';

let app: TestApp;
let owner: TestAccount;
let clinicId: string;

/** Runs `create` `count` times, a few at once. */
async function times(count: number, create: (index: number) => Promise<{ status: number }>) {
  for (let start = 0; start < count; start += 10) {
    const replies = await Promise.all(
      Array.from({ length: Math.min(10, count - start) }, (_, index) => create(start + index)),
    );
    for (const reply of replies) expect(reply.status).toBeLessThan(300);
  }
}

beforeAll(async () => {
  // Each clinician invitation is mailed: the set-up invites more from one address than an hour's share.
  app = await startTestApp({ MAIL_PER_SOURCE_PER_HOUR: '100000' });
  owner = await signUp(app, 'owner');
  const json = (path: string, body: object) => call(app.url, path, { token: owner.token, json: body });
  await times(ROWS, () =>
    call(app.url, `/v1/users/${owner.userid}/blobs`, {
      method: 'POST',
      token: owner.token,
      headers: { 'content-type': 'text/plain' },
    }),
  );
  await times(ROWS, () => uploadLog(app, owner.userid, owner.token, WINDOW));
  await times(ROWS, () => json(`/v1/users/${owner.userid}/datasets`, { type: 'upload', dataSetType: 'normal' }));
  await times(ROWS, (index) => json('/v1/clinics', { name: `Clinic ${index}`, preferredBgUnits: 'mg/dL' }));
  clinicId = (await newClinic(app, owner)).id;
  await times(ROWS, (index) =>
    json(`/v1/clinics/${clinicId}/invites/clinicians`, {
      email: `doctor.${index}@example.org`,
      roles: ['CLINIC_MEMBER'],
    }),
  );
  await times(ROWS, (index) =>
    json(`/v1/clinics/${clinicId}/patients`, {
      fullName: `Patient ${index}`,
      birthDate: '1984-08-24',
      mrn: `MRN-${index}`,
    }),
  );
}, 120_000);
afterAll(() => app?.stop());

/** The rows of a list in Tidepool's shape: a bare array, or `data` of the clinic patient list. */
const rowsOf = (body: unknown) => (Array.isArray(body) ? body : (body as { data: unknown[] }).data);

async function listed(path: string) {
  const reply = await call(app.url, path, { token: owner.token });
  expect(reply.status).toBe(200);
  return { rows: rowsOf(reply.body), statements: Number(reply.headers.get('x-sql-statements')) };
}

/** Each list as its `?page=&size=` (or `?offset=&limit=`) query for rows [start, start + size). */
const LISTS: [string, (start: number, size: number) => string][] = [
  ['blobs', (start, size) => `/v1/users/${owner.userid}/blobs?status=created&page=${start / size}&size=${size}`],
  [
    'device logs',
    (start, size) => `/v1/users/${owner.userid}/device_logs?${DEVICE_LOG_WINDOW}&page=${start / size}&size=${size}`,
  ],
  ['datasets', (start, size) => `/v1/users/${owner.userid}/datasets?page=${start / size}&size=${size}`],
  ['data_sets', (start, size) => `/v1/users/${owner.userid}/data_sets?page=${start / size}&size=${size}`],
  ['clinics', (start, size) => `/v1/clinics?offset=${start}&limit=${size}`],
  ['clinics of a clinician', (start, size) => `/v1/clinicians/${owner.userid}/clinics?offset=${start}&limit=${size}`],
  ['clinicians', (start, size) => `/v1/clinics/${clinicId}/clinicians?offset=${start}&limit=${size}`],
  ['clinic patients', (start, size) => `/v1/clinics/${clinicId}/patients?offset=${start}&limit=${size}`],
];

describe.each(LISTS)('a deep legacy page of %s', (_list, pathOf) => {
  it('costs the SQL statements of the first page, and holds the rows at its place in the whole list', async () => {
    const whole = await listed(pathOf(0, 1000));
    expect(whole.rows.length).toBeGreaterThanOrEqual(ROWS);
    const first = await listed(pathOf(0, 10));
    const deep = await listed(pathOf(110, 10));
    expect(deep.statements).toBe(first.statements);
    expect(first.rows).toEqual(whole.rows.slice(0, 10));
    expect(deep.rows).toEqual(whole.rows.slice(110, 120));
  });

  it('past the end of the list is empty, at the same cost', async () => {
    const first = await listed(pathOf(0, 10));
    const beyond = await listed(pathOf(1000 * 1000, 1000));
    expect(beyond.rows).toEqual([]);
    expect(beyond.statements).toBeLessThanOrEqual(first.statements);
  });
});

describe('the access log, which pages by cursor alone', () => {
  it('answers pages within its newest 1000 entries, and refuses deeper ones (400) instead of reading up to them', async () => {
    const log = (query: string) =>
      call(app.url, `/v1/users/${owner.userid}/access_log?${query}`, { token: owner.token });
    expect((await log('page=9&size=100')).status).toBe(200);
    const deep = await log('page=1000&size=1000');
    expect(deep.status).toBe(400);
    expect(deep.body.reason).toContain('first 1000 rows by page');
  });
});
