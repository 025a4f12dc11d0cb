import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { uploadLog } from '../support/content';
import { call, graphql, type Reply } from '../support/http';
import { expiredAccessToken } from '../support/tokens';

/**
 * Every clinic operation, called by every kind of caller, answers the status of the clinic access
 * rules (docs/decisions.md; Tidepool's clinic roles: reading needs CLINIC_MEMBER or CLINIC_ADMIN,
 * changing the clinic and its clinicians CLINIC_ADMIN, PRESCRIBER alone neither), and clinic
 * access to a patient's data is exactly what the patient granted the clinic.
 */
const CALLERS = ['anonymous', 'admin', 'member', 'prescriber', 'outsider', 'patient', 'server', 'expired'] as const;
type Caller = (typeof CALLERS)[number];

interface World {
  clinicId: string;
  shareCode: string;
  admin: TestAccount;
  member: TestAccount;
  prescriber: TestAccount;
  outsider: TestAccount;
  /** A user who shared its data with the clinic (`view`, `upload`) and so became its patient. */
  patient: TestAccount;
  tokens: Record<Caller, string | undefined>;
}

interface Operation {
  name: string;
  /** Runs the operation as the caller; an operation that changes state makes its own target first. */
  run(world: World, token: string | undefined): Promise<Reply>;
  expected: Record<Caller, number>;
}

let app: TestApp;
let server: string;
let world: World;

const WINDOW = { start: '2024-03-01T00:00:00Z', end: '2024-03-02T00:00:00Z' };
const CLINIC = {
  name: 'Matrix Clinic',
  preferredBgUnits: 'mg/dL',
  phoneNumbers: [{ type: 'main', number: '555-0100' }],
};

const asServer = (path: string, init: Parameters<typeof call>[2] = {}) =>
  call(app.url, path, { token: server, ...init });

async function addClinician(clinicId: string, account: { userid: string; email: string }, roles: string[]) {
  const reply = await asServer(`/v1/clinics/${clinicId}/clinicians`, {
    json: { id: account.userid, email: account.email, name: 'Clinician', roles },
  });
  expect(reply.status).toBe(200);
}

/** A user who is a patient of the clinic: it invites the clinic by share code, and the clinic accepts. */
async function becomePatient(clinicId: string, shareCode: string, patient: TestAccount, admin: TestAccount) {
  const invited = await call(app.url, `/confirm/send/invite/${patient.userid}/clinic`, {
    token: patient.token,
    json: { shareCode, permissions: { view: {}, upload: {} } },
  });
  expect(invited.status).toBeLessThan(300);
  const invites = await call(app.url, `/v1/clinics/${clinicId}/invites/patients`, { token: admin.token });
  const invite = (
    invites.body as { key?: string; id?: string; creatorId?: string; creator?: { userid: string } }[]
  ).find((entry) => JSON.stringify(entry).includes(patient.userid));
  const inviteId = invite?.key ?? invite?.id;
  const accepted = await call(app.url, `/v1/clinics/${clinicId}/invites/patients/${inviteId}`, {
    method: 'PUT',
    token: admin.token,
  });
  expect(accepted.status).toBe(200);
}

async function makeWorld(): Promise<World> {
  const [admin, member, prescriber, outsider, patient] = await Promise.all(
    ['admin', 'member', 'prescriber', 'outsider', 'patient'].map((name) => signUp(app, name)),
  );
  const created = await call(app.url, '/v1/clinics', { token: admin.token, json: CLINIC });
  expect(created.status).toBe(200);
  const { id: clinicId, shareCode } = created.body;
  await addClinician(clinicId, member, ['CLINIC_MEMBER']);
  await addClinician(clinicId, prescriber, ['PRESCRIBER']);
  await becomePatient(clinicId, shareCode, patient, admin);
  expect((await uploadLog(app, patient.userid, patient.token, WINDOW)).status).toBe(201);
  const expired = await expiredAccessToken(app, admin.userid);
  return {
    clinicId,
    shareCode,
    admin,
    member,
    prescriber,
    outsider,
    patient,
    tokens: {
      anonymous: undefined,
      admin: admin.token,
      member: member.token,
      prescriber: prescriber.token,
      outsider: outsider.token,
      patient: patient.token,
      server,
      expired,
    },
  };
}

/** Statuses from the callers allowed: everyone else authenticated gets 403, the rest 401. */
function allow(allowed: readonly Caller[], success = 200): Record<Caller, number> {
  const statuses = {} as Record<Caller, number>;
  for (const caller of CALLERS)
    statuses[caller] = caller === 'anonymous' || caller === 'expired' ? 401 : allowed.includes(caller) ? success : 403;
  return statuses;
}

const READERS = ['admin', 'member', 'server'] as const;
const ADMINS = ['admin', 'server'] as const;

/** A fresh custodial patient of the clinic, for operations that change or remove one. */
async function freshPatient(world: World): Promise<string> {
  const reply = await asServer(`/v1/clinics/${world.clinicId}/patients`, {
    json: { fullName: `Patient ${randomBytes(3).toString('hex')}`, birthDate: '2012-08-30' },
  });
  expect(reply.status).toBe(200);
  return reply.body.id;
}

async function freshTag(world: World): Promise<string> {
  const reply = await asServer(`/v1/clinics/${world.clinicId}/patient_tags`, {
    json: { name: `tag-${randomBytes(4).toString('hex')}` },
  });
  expect(reply.status).toBe(200);
  return reply.body.id;
}

/** A fresh CLINIC_MEMBER of the clinic (an account of its own), to change or remove. */
async function freshClinician(world: World): Promise<string> {
  const account = await signUp(app, 'clinician');
  await addClinician(world.clinicId, account, ['CLINIC_MEMBER']);
  return account.userid;
}

const OPERATIONS: Operation[] = [
  {
    name: 'GET /v1/clinics/{clinicId}',
    run: (world, token) => call(app.url, `/v1/clinics/${world.clinicId}`, { token }),
    expected: allow(['admin', 'member', 'prescriber', 'server']),
  },
  {
    name: 'PUT /v1/clinics/{clinicId}',
    run: (world, token) =>
      call(app.url, `/v1/clinics/${world.clinicId}`, { method: 'PUT', token, json: { ...CLINIC, city: 'Lyon' } }),
    expected: allow(ADMINS),
  },
  {
    name: 'GET /v1/clinics/{clinicId}/clinicians',
    run: (world, token) => call(app.url, `/v1/clinics/${world.clinicId}/clinicians`, { token }),
    expected: allow(READERS),
  },
  {
    name: 'GET /v1/clinics/{clinicId}/clinicians/{admin}',
    run: (world, token) => call(app.url, `/v1/clinics/${world.clinicId}/clinicians/${world.admin.userid}`, { token }),
    expected: allow(READERS),
  },
  {
    name: 'POST /v1/clinics/{clinicId}/clinicians (internal)',
    run: async (world, token) => {
      const account = await signUp(app, 'internal');
      return call(app.url, `/v1/clinics/${world.clinicId}/clinicians`, {
        token,
        json: { id: account.userid, email: account.email, name: 'Internal', roles: ['CLINIC_MEMBER'] },
      });
    },
    expected: allow(['server']),
  },
  {
    name: 'PUT /v1/clinics/{clinicId}/clinicians/{member}',
    run: async (world, token) => {
      const clinicianId = await freshClinician(world);
      return call(app.url, `/v1/clinics/${world.clinicId}/clinicians/${clinicianId}`, {
        method: 'PUT',
        token,
        json: { email: uniqueEmail('c'), name: 'Renamed', roles: ['CLINIC_MEMBER', 'PRESCRIBER'] },
      });
    },
    expected: allow(ADMINS),
  },
  {
    name: 'DELETE /v1/clinics/{clinicId}/clinicians/{member}',
    run: async (world, token) => {
      const clinicianId = await freshClinician(world);
      return call(app.url, `/v1/clinics/${world.clinicId}/clinicians/${clinicianId}`, { method: 'DELETE', token });
    },
    expected: allow(ADMINS),
  },
  {
    name: 'POST /v1/clinics/{clinicId}/invites/clinicians',
    run: (world, token) =>
      call(app.url, `/v1/clinics/${world.clinicId}/invites/clinicians`, {
        token,
        json: { email: uniqueEmail('invitee'), roles: ['CLINIC_MEMBER'] },
      }),
    expected: allow(ADMINS),
  },
  {
    name: 'GET /v1/clinics/{clinicId}/patients',
    run: (world, token) => call(app.url, `/v1/clinics/${world.clinicId}/patients`, { token }),
    expected: allow(READERS),
  },
  {
    name: 'POST /v1/clinics/{clinicId}/patients (custodial)',
    run: (world, token) =>
      call(app.url, `/v1/clinics/${world.clinicId}/patients`, {
        token,
        json: { fullName: 'New Patient', birthDate: '2010-01-02' },
      }),
    expected: allow(READERS),
  },
  {
    name: 'GET /v1/clinics/{clinicId}/patients/{patient}',
    run: (world, token) => call(app.url, `/v1/clinics/${world.clinicId}/patients/${world.patient.userid}`, { token }),
    expected: allow(READERS),
  },
  {
    name: 'PUT /v1/clinics/{clinicId}/patients/{custodial patient}',
    run: async (world, token) => {
      const patientId = await freshPatient(world);
      return call(app.url, `/v1/clinics/${world.clinicId}/patients/${patientId}`, {
        method: 'PUT',
        token,
        json: { fullName: 'Renamed Patient', birthDate: '2012-08-30', mrn: 'MRN-1' },
      });
    },
    expected: allow(READERS),
  },
  {
    name: 'DELETE /v1/clinics/{clinicId}/patients/{custodial patient}',
    run: async (world, token) => {
      const patientId = await freshPatient(world);
      return call(app.url, `/v1/clinics/${world.clinicId}/patients/${patientId}`, { method: 'DELETE', token });
    },
    expected: allow(ADMINS, 204),
  },
  {
    name: 'POST /v1/clinics/{clinicId}/patients/{existing user} (internal)',
    run: async (world, token) => {
      const account = await signUp(app, 'joining');
      return call(app.url, `/v1/clinics/${world.clinicId}/patients/${account.userid}`, {
        token,
        json: { fullName: 'Joining Patient', birthDate: '2001-02-03', permissions: { view: {} } },
      });
    },
    expected: allow(['server']),
  },
  {
    // A review is a clinician's act: a server token has no clinician to record.
    name: 'PUT /v1/clinics/{clinicId}/patients/{patient}/reviews',
    run: (world, token) =>
      call(app.url, `/v1/clinics/${world.clinicId}/patients/${world.patient.userid}/reviews`, { method: 'PUT', token }),
    expected: allow(['admin', 'member']),
  },
  {
    // What a patient grants its clinic is the patient's to change (here: to the same set again).
    name: 'PUT /v1/clinics/{clinicId}/patients/{patient}/permissions',
    run: (world, token) =>
      call(app.url, `/v1/clinics/${world.clinicId}/patients/${world.patient.userid}/permissions`, {
        method: 'PUT',
        token,
        json: { view: {}, upload: {} },
      }),
    expected: allow(['patient', 'server']),
  },
  {
    name: 'POST /v1/clinics/{clinicId}/patient_tags',
    run: (world, token) =>
      call(app.url, `/v1/clinics/${world.clinicId}/patient_tags`, {
        token,
        json: { name: `t-${randomBytes(4).toString('hex')}` },
      }),
    expected: allow(READERS),
  },
  {
    name: 'DELETE /v1/clinics/{clinicId}/patient_tags/{tag}',
    run: async (world, token) => {
      const tagId = await freshTag(world);
      return call(app.url, `/v1/clinics/${world.clinicId}/patient_tags/${tagId}`, { method: 'DELETE', token });
    },
    expected: allow(ADMINS, 204),
  },
  {
    name: 'GET /v1/clinics/{clinicId}/invites/patients',
    run: (world, token) => call(app.url, `/v1/clinics/${world.clinicId}/invites/patients`, { token }),
    expected: allow(READERS),
  },
  {
    name: 'GET /v1/patients/{patient}/clinics',
    run: (world, token) => call(app.url, `/v1/patients/${world.patient.userid}/clinics`, { token }),
    expected: allow(['patient', 'server']),
  },
  {
    name: 'GET /v1/clinicians/{admin}/clinics',
    run: (world, token) => call(app.url, `/v1/clinicians/${world.admin.userid}/clinics`, { token }),
    expected: allow(['admin', 'server']),
  },
  {
    // Every clinician of the clinic, whatever its roles, holds what the patient granted the clinic.
    name: 'GET /v1/users/{patient}/device_logs (through the clinic)',
    run: (world, token) =>
      call(
        app.url,
        `/v1/users/${world.patient.userid}/device_logs?startAtTime=2024-02-01T00:00:00Z&endAtTime=2024-04-01T00:00:00Z`,
        { token },
      ),
    expected: allow(['admin', 'member', 'prescriber', 'patient', 'server']),
  },
];

beforeAll(async () => {
  app = await startTestApp();
  server = await serverToken(app);
  world = await makeWorld();
});
afterAll(async () => {
  await app?.stop();
});

describe('clinic authorization matrix through REST', () => {
  for (const operation of OPERATIONS) {
    it(`${operation.name}: ${CALLERS.map((caller) => `${caller} ${operation.expected[caller]}`).join(', ')}`, async () => {
      const statuses = {} as Record<Caller, number>;
      for (const caller of CALLERS) statuses[caller] = (await operation.run(world, world.tokens[caller])).status;
      expect(statuses).toEqual(operation.expected);
    });
  }

  it('lists to each caller only the clinics it belongs to (servers: all)', async () => {
    const seen: Record<string, boolean> = {};
    for (const caller of CALLERS) {
      const reply = await call(app.url, '/v1/clinics?limit=100', { token: world.tokens[caller] });
      seen[caller] = reply.status === 200 && JSON.stringify(reply.body).includes(world.clinicId);
    }
    expect(seen).toEqual({
      anonymous: false,
      admin: true,
      member: true,
      prescriber: true,
      outsider: false,
      patient: false,
      server: true,
      expired: false,
    });
  });
});

describe('clinic authorization matrix through GraphQL', () => {
  it('resolves federation references to the clinic and its patient by the lookups’ rules', async () => {
    const codes: Record<string, string[]> = {};
    const representations = [
      { __typename: 'Clinic', id: world.clinicId },
      { __typename: 'ClinicPatient', clinicId: world.clinicId, userId: world.patient.userid },
    ];
    for (const caller of CALLERS) {
      const reply = await graphql(
        app.url,
        'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Clinic { id } ... on ClinicPatient { userId } } }',
        { r: representations },
        world.tokens[caller],
      );
      const codeAt = (index: number) =>
        (reply.body.errors ?? []).find((error: { path?: unknown[] }) => !error.path || error.path[1] === index)
          ?.extensions.code;
      const entities: (object | null)[] = reply.body.data?._entities ?? [null, null];
      codes[caller] = entities.map((entity, index) => (entity ? 'OK' : codeAt(index)));
    }
    expect(codes).toEqual({
      anonymous: ['UNAUTHENTICATED', 'UNAUTHENTICATED'],
      admin: ['OK', 'OK'],
      member: ['OK', 'OK'],
      prescriber: ['OK', 'FORBIDDEN'],
      outsider: ['FORBIDDEN', 'FORBIDDEN'],
      patient: ['FORBIDDEN', 'FORBIDDEN'],
      server: ['OK', 'OK'],
      expired: ['UNAUTHENTICATED', 'UNAUTHENTICATED'],
    });
  });

  it('clinic(id) answers its members and servers, FORBIDDEN to others', async () => {
    const codes: Record<string, string> = {};
    for (const caller of CALLERS) {
      const reply = await graphql(
        app.url,
        'query ($id: ID!) { clinic(id: $id) { id name } }',
        { id: world.clinicId },
        world.tokens[caller],
      );
      codes[caller] = reply.body.errors?.[0]?.extensions?.code ?? 'OK';
    }
    expect(codes).toEqual({
      anonymous: 'UNAUTHENTICATED',
      admin: 'OK',
      member: 'OK',
      prescriber: 'OK',
      outsider: 'FORBIDDEN',
      patient: 'FORBIDDEN',
      server: 'OK',
      expired: 'UNAUTHENTICATED',
    });
  });
});
