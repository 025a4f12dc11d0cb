import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  buildClientSchema,
  getIntrospectionQuery,
  isInputObjectType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLInputField,
} from 'graphql';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { eventually } from '../support/eventually';
import { cbg, uploadReadings } from '../support/glucose';
import { graphql } from '../support/http';

/**
 * What GraphiQL and code generators do first: the standard introspection query, answered without
 * errors, whose schema keeps every default value; and a default an argument declares is the
 * value a query omitting it gets.
 */
let app: TestApp;
let patient: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  patient = await signUp(app, 'patient');
});
afterAll(async () => {
  await app?.stop();
});

it('answers the standard introspection query without errors, every default value kept', async () => {
  const reply = await graphql(app.url, getIntrospectionQuery());
  expect(reply.body.errors).toBeUndefined();
  const schema = buildClientSchema(reply.body.data);
  const defaults: Record<string, unknown> = {};
  const collect = (owner: string, inputs: readonly (GraphQLArgument | GraphQLInputField)[]) => {
    for (const input of inputs)
      if (input.defaultValue !== undefined) defaults[`${owner}(${input.name})`] = input.defaultValue;
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type))
      for (const field of Object.values(type.getFields())) collect(`${type}.${field.name}`, field.args);
    if (isInputObjectType(type)) collect(String(type), Object.values(type.getFields()));
  }
  expect(defaults).toMatchObject({
    'User.glucoseSummary(period)': 'FOURTEEN_DAYS',
    'ClinicPatient.glucoseSummary(period)': 'FOURTEEN_DAYS',
    'GlucoseSummaryUpdate.glucoseSummary(period)': 'FOURTEEN_DAYS',
  });
});

it('reads the 14-day summary when a query omits its period', async () => {
  // Two days of readings: the 14-day period holds both, the 1-day period the newer one.
  const start = Date.UTC(2026, 10, 20);
  const readings = Array.from({ length: 576 }, (_, index) => cbg(start + index * 300_000, 100 + (index % 50)));
  await uploadReadings(app, patient.userid, patient.token, readings);
  const records = async (period: string) => {
    const reply = await graphql(
      app.url,
      `{ me { glucoseSummary${period} { cgm { dates { outdatedSince } period { totalRecords } } } } }`,
      {},
      patient.token,
    );
    expect(reply.body.errors).toBeUndefined();
    return reply.body.data.me.glucoseSummary?.cgm ?? null;
  };
  await eventually(async () => {
    const summary = await records('(period: FOURTEEN_DAYS)');
    return summary !== null && summary.dates.outdatedSince === null;
  }, 'the summary is up to date');
  expect((await records('(period: ONE_DAY)')).period.totalRecords).toBe(288);
  expect((await records('(period: FOURTEEN_DAYS)')).period.totalRecords).toBe(576);
  expect((await records('')).period.totalRecords).toBe(576);
});
