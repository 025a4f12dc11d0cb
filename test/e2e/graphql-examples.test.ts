import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { buildClientSchema, getIntrospectionQuery, parse, validate, type GraphQLSchema } from 'graphql';
import { EXAMPLE_CONTEXT_QUERY, EXAMPLES, type ExampleContext } from '../../playground/examples';
import { seedDemoClinic } from '../../src/cli/demo-clinic';
import { serverToken } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { cbg, uploadReadings } from '../support/glucose';
import { call, graphql } from '../support/http';
import { liveClient, liveSubscriptions } from '../support/live';

/**
 * The playground's example tabs (the documented examples) as a clinic's dashboard developer meets
 * them: valid against the schema GraphiQL builds from introspection, and answering without
 * errors on the demo clinic `npm run seed` makes, signed in as its admin.
 */
const ADMIN_PASSWORD = 'demo-password-for-tests';
let app: TestApp;
let token: string;
let context: ExampleContext;

const CURRENT_SUMMARIES = `query ($id: ID!) { clinic(id: $id) { patients(first: 10) { nodes {
  glucoseSummary(period: THIRTY_DAYS) { cgm { dates { outdatedSince } } } } } } }`;

const example = (title: string) => EXAMPLES.find((candidate) => candidate.title === title)!;

beforeAll(async () => {
  app = await startTestApp();
  await seedDemoClinic({
    base: app.url,
    serverSecret: app.serverSecret,
    adminPassword: ADMIN_PASSWORD,
    patients: 3,
    onPatient: () => undefined,
  });
  const login = await call(app.url, '/auth/login', {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`demo-admin@islet.example:${ADMIN_PASSWORD}`).toString('base64')}`,
    },
  });
  token = login.headers.get('x-tidepool-session-token')!;
  const found = await graphql(app.url, EXAMPLE_CONTEXT_QUERY, {}, token);
  expect(found.body.errors).toBeUndefined();
  const [clinic] = found.body.data.myClinics.nodes;
  context = { clinicId: clinic.id, tagId: clinic.patientTags[0].id, now: new Date() };
  // The summaries are updated after the uploads are answered, in turns: the examples read them once current.
  await eventually(async () => {
    const read = await graphql(app.url, CURRENT_SUMMARIES, { id: clinic.id }, token);
    const nodes: { glucoseSummary: { cgm: { dates: { outdatedSince: string | null } } | null } | null }[] =
      read.body.data.clinic.patients.nodes;
    return nodes.every((node) => node.glucoseSummary?.cgm && node.glucoseSummary.cgm.dates.outdatedSince === null);
  }, 'every demo patient’s summary is current');
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

it('validates every example against the schema built from the introspection answer', async () => {
  const introspection = await graphql(app.url, getIntrospectionQuery());
  const schema: GraphQLSchema = buildClientSchema(introspection.body.data);
  const problems = [EXAMPLE_CONTEXT_QUERY, ...EXAMPLES.map(({ query }) => query)].flatMap((query) =>
    validate(schema, parse(query)).map((error) => error.message),
  );
  expect(problems).toEqual([]);
  expect(EXAMPLES.map(({ title }) => title)).toEqual([
    'Patients, worst TIR first',
    'TIDE report',
    'Readings of a day',
    'Live summaries',
  ]);
});

it('lists the demo clinic’s patients lowest time in range first, with 14-day TIR, TBR and GMI', async () => {
  const { query, variables } = example('Patients, worst TIR first');
  const reply = await graphql(app.url, query, variables(context), token);
  expect(reply.body.errors).toBeUndefined();
  const patients = reply.body.data.myClinics.nodes[0].patients.nodes;
  expect(patients).toHaveLength(3);
  const periods = patients.map((patient: any) => patient.glucoseSummary.cgm.period);
  const inRange = periods.map((period: any) => period.timeInTargetPercent);
  expect(inRange).toEqual([...inRange].sort((a, b) => a - b));
  for (const period of periods) {
    expect(period.timeInTargetPercent).toBeGreaterThan(0);
    expect(period.timeInTargetPercent).toBeLessThanOrEqual(1);
    expect(period.glucoseManagementIndicator).toBeGreaterThan(4);
    // The demo clinic reads in mg/dL.
    expect(period.units).toBe('MG_DL');
    expect(period.averageGlucose).toBeGreaterThan(54);
  }
});

it('answers the TIDE report and a patient’s readings of yesterday', async () => {
  const tide = example('TIDE report');
  const report = await graphql(app.url, tide.query, tide.variables(context), token);
  expect(report.body.errors).toBeUndefined();
  expect(report.body.data.clinic.tideReport.categories.length).toBeGreaterThan(0);

  const readings = example('Readings of a day');
  const day = await graphql(app.url, readings.query, readings.variables(context), token);
  expect(day.body.errors).toBeUndefined();
  const page = day.body.data.myClinics.nodes[0].patients.nodes[0].user.glucoseReadings;
  expect(page.nodes).toHaveLength(100);
  expect(page.pageInfo.hasNextPage).toBe(true);
  const { from, to } = readings.variables(context) as { from: string; to: string };
  for (const reading of page.nodes) {
    expect(reading.time >= from && reading.time < to).toBe(true);
    expect(reading.units).toBe('MG_DL');
  }
});

it('follows the clinic’s patients live: an upload arrives on the subscription', async () => {
  const live = liveClient(app.url, token);
  const { query, variables } = example('Live summaries');
  const subscription = live.subscribe(query, variables(context));
  await eventually(async () => (await liveSubscriptions(app.url)) === 1, 'the subscription started');
  const server = await serverToken(app);
  const clinic = await call(app.url, `/v1/clinics/${context.clinicId}/patients?limit=1`, { token: server });
  const next = subscription.next();
  await uploadReadings(app, clinic.body.data[0].id, server, [cbg(Date.now(), 120)]);
  const update = await next;
  expect(update.errors).toBeUndefined();
  expect(update.data!.clinicPatientSummaryUpdated.kind).toBe('CGM');
  expect(update.data!.clinicPatientSummaryUpdated.patient.fullName).toEqual(expect.any(String));
  await subscription.stop();
  await live.dispose();
});
