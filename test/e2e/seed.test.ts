import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import {
  DEMO_PROFILES,
  demoSummary,
  demoTideReport,
  playgroundAddress,
  seedDemoClinic,
} from '../../src/cli/demo-clinic';
import { seedProgress } from '../../src/cli/seed-progress';
import { DEFAULT_CATEGORIES } from '../../src/domains/clinics/tide/categories';
import { freePort } from '../support/ports';
import { call, graphql } from '../support/http';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.stop();
});

const count = async (sql: string) => Number((await app.database.query(sql))[0]!.count);

/** The demo admin's session token (the seed signs it up). */
async function demoAdminToken(): Promise<string> {
  const login = await call(app.url, '/auth/login', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from('demo-admin@islet.example:demo-password-for-tests').toString('base64')}`,
    },
  });
  return login.headers.get('x-tidepool-session-token')!;
}

describe('npm run seed', () => {
  it('makes a demo clinic whose patients have 30 days of readings and summaries, and adds nothing when run again', async () => {
    const seed = () =>
      seedDemoClinic({
        base: app.url,
        serverSecret: app.serverSecret,
        adminPassword: 'demo-password-for-tests',
        patients: 2,
        onPatient: () => undefined,
      });
    const clinic = await seed();
    const totals = async () => ({
      clinics: await count(`select count(*) from clinics where name = 'Islet Demo Clinic'`),
      patients: await count(`select count(*) from clinic_patients where clinic_id = '${clinic.id}'`),
      datasets: await count(
        `select count(*) from datasets where user_id in (select user_id from clinic_patients where clinic_id = '${clinic.id}')`,
      ),
      readings: await count(
        `select count(*) from glucose_readings where user_id in (select user_id from clinic_patients where clinic_id = '${clinic.id}')`,
      ),
    });
    const first = await totals();
    expect(first).toEqual({ clinics: 1, patients: 2, datasets: 2, readings: expect.any(Number) });
    // 30 days of 5-minute readings each; a second run may add the few minutes that passed since.
    expect(first.readings).toBeGreaterThanOrEqual(2 * 30 * 288);
    await eventually(
      async () =>
        (await count(`select count(*) from glucose_summaries where outdated_since is null and periods is not null`)) >=
        2,
      'both patients have summaries',
    );
    await seed();
    const second = await totals();
    expect({ ...second, readings: 0 }).toEqual({ ...first, readings: 0 });
    expect(second.readings - first.readings).toBeLessThanOrEqual(2 * 2);
  });

  it('prints the demo clinic’s TIDE report through REST and for the playground, and both answer', async () => {
    const clinic = await seedDemoClinic({
      base: app.url,
      serverSecret: app.serverSecret,
      adminPassword: 'demo-password-for-tests',
      patients: 2,
      onPatient: () => undefined,
    });
    const { restUrl, graphqlQuery } = demoTideReport(app.url, clinic);
    const printed = demoSummary(app.url, clinic, 2, await playgroundAddress(app.url));
    expect(printed).toContain(`the playground, ${app.url}/graphql`);
    expect(printed).toContain(restUrl);
    expect(printed).toContain('tideReport(period: FOURTEEN_DAYS');
    const token = await demoAdminToken();
    const rest = await call(app.url, new URL(restUrl).pathname + new URL(restUrl).search, { token });
    expect(rest.status).toBe(200);
    expect(rest.body.config).toMatchObject({ clinicId: clinic.id, period: '14d' });
    const played = await graphql(app.url, graphqlQuery, {}, token);
    expect(played.body.errors).toBeUndefined();
    expect(played.body.data.clinic.tideReport.categories.length).toBeGreaterThan(0);
  });

  it("gives the playground's address at PUBLIC_URL, where the service says it is", async () => {
    const port = await freePort();
    const behindProxy = await startTestApp({ PORT: String(port), PUBLIC_URL: `http://islet.localhost:${port}` });
    try {
      expect(await playgroundAddress(`http://127.0.0.1:${port}`)).toBe(`http://islet.localhost:${port}/graphql`);
    } finally {
      await behindProxy.stop();
    }
    const withoutPlayground = await startTestApp({ GRAPHQL_PLAYGROUND: 'false' });
    try {
      expect(await playgroundAddress(withoutPlayground.url)).toBeUndefined();
    } finally {
      await withoutPlayground.stop();
    }
  }, 60_000);

  it('shows its progress without a terminal: a line every few seconds', async () => {
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const bar = seedProgress(8, output, 20);
    bar.increment(3);
    await eventually(async () => printed.includes('3/8 patients'), 'a progress line without a terminal');
    bar.stop();
    expect(printed).toMatch(/^seeding .* 0\/8 patients/m);
  });

  it('fills every category of the demo TIDE report, and its patients whose data stopped arriving', async () => {
    const clinic = await seedDemoClinic({
      base: app.url,
      serverSecret: app.serverSecret,
      adminPassword: 'demo-password-for-tests',
      patients: DEMO_PROFILES.length,
      onPatient: () => undefined,
    });
    const token = await demoAdminToken();
    const { restUrl } = demoTideReport(app.url, clinic);
    const reported = async () => {
      const report = await call(app.url, new URL(restUrl).pathname + new URL(restUrl).search, { token });
      return Object.fromEntries(
        Object.entries(report.body.results as Record<string, unknown[]>).map(([key, entries]) => [key, entries.length]),
      );
    };
    const everyCategory = [...DEFAULT_CATEGORIES, 'noData'];
    let last: Record<string, number> = {};
    await eventually(
      async () => {
        last = await reported();
        return everyCategory.every((category) => (last[category] ?? 0) > 0);
      },
      'every category of the demo TIDE report has patients',
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; reported: ${JSON.stringify(last)}`);
    });
  }, 120_000);
});
