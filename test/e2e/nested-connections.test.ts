import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildSchema, getNamedType, isObjectType } from 'graphql';
import { signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { newClinic } from '../support/clinics';
import { uploadBlob, uploadLog } from '../support/content';
import { cbg, uploadReadings } from '../support/glucose';
import { call, graphql } from '../support/http';

/**
 * Every connection below a root field (a `*Connection` field of a non-root type), read for many
 * parents at once: the SQL statements of a request must not grow with the number of parents,
 * and a parent named many times is read once. Each connection's cursor keys are checked against
 * the list's own key types: a forged cursor of the right list is refused as BAD_USER_INPUT.
 */

let app: TestApp;
let custodian: TestAccount;
let admin: TestAccount;
const children: string[] = [];
const clinics: string[] = [];
/** When the set-up ended. */
let setUpBy: string;
const PARENTS = 6;
const LOG_WINDOW = { start: '2024-03-01T00:00:00Z', end: '2024-03-02T00:00:00Z' };
const READINGS_FROM = Date.parse('2024-03-01T10:00:00Z');

const gql = (query: string, variables: Record<string, unknown>, token: string) =>
  graphql(app.url, query, variables, token);

async function createChild(): Promise<string> {
  const reply = await gql(
    'mutation ($c: ID!) { createCustodialUser(input: { custodianId: $c }) { user { userId } } }',
    { c: custodian.userid },
    custodian.token,
  );
  const userId: string = reply.body.data.createCustodialUser.user.userId;
  expect((await uploadBlob(app, userId, custodian.token)).status).toBe(201);
  expect((await uploadLog(app, userId, custodian.token, LOG_WINDOW)).status).toBe(201);
  const readings = [0, 1, 2].map((index) => cbg(READINGS_FROM + index * 300_000, 120 + index));
  await uploadReadings(app, userId, custodian.token, readings);
  // The custodian shares its own data with the child: the child's sharedBy lists it.
  const shared = await call(app.url, `/access/${custodian.userid}/${userId}`, {
    method: 'POST',
    token: custodian.token,
    json: { view: {} },
  });
  expect(shared.status).toBe(200);
  return userId;
}

async function createClinic(index: number): Promise<string> {
  const clinic = await newClinic(app, admin, { name: `Clinic ${index}`, preferredBgUnits: 'mg/dL' });
  const patient = await gql(
    'mutation ($c: ID!) { createClinicPatient(input: { clinicId: $c, fullName: "Paged Patient", birthDate: "2010-10-10" }) { patient { userId } } }',
    { c: clinic.id },
    admin.token,
  );
  expect(patient.body.errors).toBeUndefined();
  return clinic.id;
}

beforeAll(async () => {
  app = await startTestApp();
  [custodian, admin] = await Promise.all([signUp(app, 'custodian'), signUp(app, 'admin')]);
  for (let index = 0; index < PARENTS; index += 1) {
    children.push(await createChild());
    clinics.push(await createClinic(index));
  }
  // The custodian's reads of its children, and the admin's of the clinics' patients, fill their logs.
  await gql('query ($ids: [ID!]!) { users(ids: $ids) { blobs { nodes { id } } } }', { ids: children }, custodian.token);
  await gql('{ myClinics { nodes { patients { nodes { userId } } } } }', {}, admin.token);
  setUpBy = new Date().toISOString();
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

/** The nested connections of the committed schema, as `User.blobs`. */
function nestedConnections(): string[] {
  const schema = buildSchema(fs.readFileSync(path.join(__dirname, '..', '..', 'schema.graphql'), 'utf8'));
  const roots = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()];
  return Object.values(schema.getTypeMap())
    .flatMap((type) =>
      isObjectType(type) && !type.name.startsWith('__') && !roots.includes(type)
        ? Object.values(type.getFields())
            .filter((field) => getNamedType(field.type).name.endsWith('Connection'))
            .map((field) => `${type.name}.${field.name}`)
        : [],
    )
    .sort();
}

/** The logs' window, whose end is exclusive: a day more than the upload's. */
const DAY = `startAt: "${LOG_WINDOW.start}", endAt: "2024-03-03T00:00:00Z"`;
/** Each nested connection's arguments (besides `first` and `after`). */
const ARGUMENTS: Record<string, () => string> = {
  // The entries written before the tests: the reads of the tests themselves, written meanwhile,
  // could fall into a new hour for some children and not others, and read one more span.
  'User.accessLog': () => `filter: { endAt: "${setUpBy}" }`,
  'User.blobs': () => '',
  'User.datasets': () => '',
  'User.deviceLogs': () => `filter: { ${DAY} }`,
  'User.glucoseReadings': () => `filter: { from: "${LOG_WINDOW.start}", to: "${LOG_WINDOW.end}" }`,
  'User.sharedBy': () => '',
  'User.sharedWith': () => '',
  'Clinic.accessLog': () => '',
  'Clinic.clinicians': () => '',
  'Clinic.patients': () => '',
};

/** A request reading one connection of every parent, with its caller; `after` pages on. */
function request(connection: string, parents: string[], after: string | null = null) {
  const [type, field] = connection.split('.') as [string, string];
  const args = [ARGUMENTS[connection]!(), 'first: 1', after ? `after: ${JSON.stringify(after)}` : '']
    .filter(Boolean)
    .join(', ');
  const selection = `${field}(${args}) { totalCount nodes { __typename } pageInfo { endCursor } }`;
  return type === 'User'
    ? {
        query: `query ($ids: [ID!]!) { parents: users(ids: $ids) { ${selection} } }`,
        variables: { ids: parents },
        token: custodian.token,
      }
    : {
        query: `query ($r: [_Any!]!) { parents: _entities(representations: $r) { ... on Clinic { ${selection} } } }`,
        variables: { r: parents.map((id) => ({ __typename: 'Clinic', id })) },
        token: admin.token,
      };
}

const parentsOf = (connection: string) => (connection.startsWith('User.') ? children : clinics);

/** The SQL statements of reading `connection` of `parents`, checking every parent's page came back. */
async function statements(connection: string, parents: string[]): Promise<number> {
  const { query, variables, token } = request(connection, parents);
  const reply = await gql(query, variables, token);
  expect(reply.body.errors).toBeUndefined();
  const field = connection.split('.')[1]!;
  const pages = reply.body.data.parents.map((parent: Record<string, any>) => parent[field]);
  expect(pages).toHaveLength(parents.length);
  for (const page of pages) {
    expect(page.totalCount).toBeGreaterThan(0);
    expect(page.nodes).toHaveLength(1);
  }
  return Number(reply.headers.get('x-sql-statements'));
}

it('covers every nested connection of the schema', () => {
  expect(Object.keys(ARGUMENTS).sort()).toEqual(nestedConnections());
});

describe.each(Object.keys(ARGUMENTS))('%s', (connection) => {
  it('reads the pages of many parents in as many SQL statements as of one, repeated parents once', async () => {
    const parents = parentsOf(connection);
    // Once unmeasured: the accounts it shows (the access log's login names) are then kept in the
    // instance's memory for every measured read alike.
    await statements(connection, parents);
    const two = await statements(connection, parents.slice(0, 2));
    expect(await statements(connection, parents)).toBe(two);
    expect(await statements(connection, [...parents, ...parents, ...parents])).toBe(two);
  });

  it('refuses a cursor of its list whose keys are not of the list’s key types, naming after', async () => {
    const parents = parentsOf(connection);
    const { query, variables, token } = request(connection, parents.slice(0, 1));
    const field = connection.split('.')[1]!;
    const first = await gql(query, variables, token);
    const cursor: string = first.body.data.parents[0][field].pageInfo.endCursor;
    const [version, list, key] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const forge = (forged: unknown[]) => Buffer.from(JSON.stringify([version, list, forged])).toString('base64url');
    const retyped = key.map((part: unknown) => (typeof part === 'number' ? String(part) : 1e308));
    for (const forged of [retyped, [1e308], [...key, ...key], key.map(() => 'x'.repeat(40))]) {
      const page = request(connection, parents.slice(0, 1), forge(forged));
      const reply = await gql(page.query, page.variables, page.token);
      expect({ forged, error: reply.body.errors?.[0]?.extensions }).toEqual({
        forged,
        error: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'after' }),
      });
    }
    // The untouched cursor still pages on.
    const next = request(connection, parents.slice(0, 1), cursor);
    expect((await gql(next.query, next.variables, next.token)).body.errors).toBeUndefined();
  });
});
