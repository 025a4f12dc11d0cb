import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call, graphql } from '../support/http';
import { clinicWithStaff as staffedClinic, newClinic as createdClinic } from '../support/clinics';
import { expectMatchesOperation } from '../support/openapi';

let app: TestApp;
let server: string;

beforeAll(async () => {
  app = await startTestApp();
  server = await serverToken(app);
});
afterAll(async () => {
  await app?.stop();
});

const CLINIC = {
  name: 'Sunrise Diabetes Care',
  address: '1 Main St',
  city: 'Palo Alto',
  postalCode: '94301',
  state: 'CA',
  country: 'USA',
  phoneNumbers: [{ type: 'main', number: '+1 (555) 555-1212' }],
  clinicType: 'provider_practice',
  clinicSize: '250-499',
  website: 'https://sunrise.example',
  preferredBgUnits: 'mg/dL',
  timezone: 'US/Eastern',
  suppressedNotifications: { patientClinicInvitation: true },
};

const createClinic = (owner: TestAccount, body: unknown = CLINIC) =>
  call(app.url, '/v1/clinics', { token: owner.token, json: body });

const newClinic = (owner: TestAccount, body: Record<string, unknown> = CLINIC) => createdClinic(app, owner, body);
const clinicWithStaff = () => staffedClinic(app, server, CLINIC);

describe('clinics over REST', () => {
  it('creates a clinic whose creator is its CLINIC_ADMIN, with every field as sent', async () => {
    const owner = await signUp(app, 'owner');
    const reply = await createClinic(owner);
    expect(reply.status).toBe(200);
    await expectMatchesOperation(reply, 'clinic.v1.yaml', 'CreateClinic');
    expect(reply.body).toMatchObject({
      ...CLINIC,
      tier: 'tier0100',
      tierDescription: 'Free',
      canMigrate: false,
      patientTags: [],
    });
    expect(reply.body.id).toMatch(/^[0-9a-f]{24}$/);
    expect(reply.body.shareCode).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    expect(reply.body.createdTime).toBe(reply.body.updatedTime);

    const clinicians = await call(app.url, `/v1/clinics/${reply.body.id}/clinicians`, { token: owner.token });
    expect(clinicians.status).toBe(200);
    await expectMatchesOperation(clinicians, 'clinic.v1.yaml', 'ListClinicians');
    expect(clinicians.body).toEqual([
      expect.objectContaining({ id: owner.userid, email: owner.email, roles: ['CLINIC_ADMIN'] }),
    ]);
  });

  it('reads a clinic to its clinicians of any role and to servers, not to others', async () => {
    const { clinic, admin, member, prescriber, outsider } = await clinicWithStaff();
    for (const token of [admin.token, member.token, prescriber.token, server]) {
      const reply = await call(app.url, `/v1/clinics/${clinic.id}`, { token });
      expect(reply.status).toBe(200);
      await expectMatchesOperation(reply, 'clinic.v1.yaml', 'GetClinic');
      expect(reply.body).toEqual(clinic);
    }
    expect((await call(app.url, `/v1/clinics/${clinic.id}`, { token: outsider.token })).status).toBe(403);
    expect((await call(app.url, `/v1/clinics/${clinic.id}`)).status).toBe(401);
    expect((await call(app.url, `/v1/clinics/${clinic.id}`, { token: 'not-a-token' })).status).toBe(401);
  });

  it('answers 400 naming a bad clinic id and 404 for an unknown clinic', async () => {
    const owner = await signUp(app, 'owner');
    const bad = await call(app.url, '/v1/clinics/ABCDEF0123456789abcdef01', { token: owner.token });
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toMatch(/clinicId/);
    expect((await call(app.url, '/v1/clinics/123', { token: owner.token })).status).toBe(400);
    // Missing credentials are answered first, whatever else is wrong.
    expect((await call(app.url, '/v1/clinics/123')).status).toBe(401);
    expect((await call(app.url, '/v1/clinicians/nope/clinics')).status).toBe(401);
    const unknown = await call(app.url, '/v1/clinics/0123456789abcdef01234567', { token: owner.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 404, reason: expect.any(String), error: expect.any(Number) });
  });

  it('replaces the fields as a whole on update: admins and servers only', async () => {
    const { clinic, admin, member, prescriber, outsider } = await clinicWithStaff();
    const update = { name: 'Renamed', preferredBgUnits: 'mmol/L', timezone: 'Europe/London' };
    for (const account of [member, prescriber, outsider]) {
      const refused = await call(app.url, `/v1/clinics/${clinic.id}`, {
        method: 'PUT',
        token: account.token,
        json: update,
      });
      expect(refused.status).toBe(403);
    }
    expect((await call(app.url, `/v1/clinics/${clinic.id}`, { method: 'PUT', json: update })).status).toBe(401);
    // A client echoing back what it read (read-only fields included) is fine.
    const reply = await call(app.url, `/v1/clinics/${clinic.id}`, {
      method: 'PUT',
      token: admin.token,
      json: { ...update, id: clinic.id, shareCode: clinic.shareCode, createdTime: clinic.createdTime, tier: 'x' },
    });
    expect(reply.status).toBe(200);
    await expectMatchesOperation(reply, 'clinic.v1.yaml', 'UpdateClinic');
    expect(reply.body).toEqual({
      id: clinic.id,
      shareCode: clinic.shareCode,
      canMigrate: false,
      tier: 'tier0100',
      tierDescription: 'Free',
      patientTags: [],
      createdTime: clinic.createdTime,
      updatedTime: expect.any(String),
      ...update,
    });
    expect(Date.parse(reply.body.updatedTime)).toBeGreaterThan(Date.parse(clinic.createdTime as string));
    const byServer = await call(app.url, `/v1/clinics/${clinic.id}`, {
      method: 'PUT',
      token: server,
      json: { ...CLINIC, name: 'By server' },
    });
    expect(byServer.status).toBe(200);
    expect(byServer.body).toMatchObject({ ...CLINIC, name: 'By server' });
  });

  it('refuses every bad field with 400 naming it', async () => {
    const owner = await signUp(app, 'owner');
    const cases: [Record<string, unknown>, string][] = [
      [{ name: undefined }, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 42 }, 'name'],
      [{ preferredBgUnits: undefined }, 'preferredBgUnits'],
      [{ preferredBgUnits: 'mg/dl' }, 'preferredBgUnits'],
      [{ clinicType: 'hospital' }, 'clinicType'],
      [{ clinicType: '' }, 'clinicType'],
      [{ clinicSize: '0-100' }, 'clinicSize'],
      [{ website: 'not a url' }, 'website'],
      [{ website: 'sunrise.example' }, 'website'],
      [{ phoneNumbers: [] }, 'phoneNumbers'],
      [{ phoneNumbers: { number: '1' } }, 'phoneNumbers'],
      [{ phoneNumbers: [{ number: '1' }, { number: '1' }] }, 'phoneNumbers'],
      [{ phoneNumbers: [{ type: 'main' }] }, 'phoneNumbers'],
      [{ phoneNumbers: [{ type: '', number: '1' }] }, 'phoneNumbers[0].type'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ timezone: 'us/eastern' }, 'timezone'],
      [{ timezone: '+01:00' }, 'timezone'],
      [{ address: '' }, 'address'],
      [{ city: '' }, 'city'],
      [{ postalCode: '' }, 'postalCode'],
      [{ state: '' }, 'state'],
      [{ country: '' }, 'country'],
      [{ suppressedNotifications: { patientClinicInvitation: 'yes' } }, 'patientClinicInvitation'],
      [{ suppressedNotifications: { other: true } }, 'other'],
      [{ unknownField: 1 }, 'unknownField'],
    ];
    for (const [change, field] of cases) {
      const reply = await createClinic(owner, { ...CLINIC, ...change });
      expect({ change, status: reply.status }).toEqual({ change, status: 400 });
      expect({ change, reason: reply.body.reason }).toEqual({ change, reason: expect.stringContaining(field) });
    }
    expect(
      (
        await call(app.url, '/v1/clinics', {
          token: owner.token,
          body: '{',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(400);
    expect((await createClinic(owner, [CLINIC])).status).toBe(400);
  });

  it('takes every IANA time zone of Tidepool’s list, legacy aliases included', async () => {
    const owner = await signUp(app, 'owner');
    for (const timezone of [
      'UTC',
      'Etc/UTC',
      'US/Eastern',
      'America/New_York',
      'Europe/London',
      'Asia/Calcutta',
      'GMT',
    ]) {
      const reply = await createClinic(owner, { ...CLINIC, timezone });
      expect({ timezone, status: reply.status }).toEqual({ timezone, status: 200 });
      expect(reply.body.timezone).toBe(timezone);
    }
  });

  it('refuses a server token as creator: a clinic needs a user to be its admin', async () => {
    const reply = await call(app.url, '/v1/clinics', { token: server, json: CLINIC });
    expect(reply.status).toBe(403);
    expect((await call(app.url, '/v1/clinics', { json: CLINIC })).status).toBe(401);
  });
});

describe('finding clinics', () => {
  it('finds a clinic by share code in any letter case, for any signed-in caller', async () => {
    const owner = await signUp(app, 'owner');
    const patient = await signUp(app, 'patient');
    const clinic = await newClinic(owner);
    for (const code of [clinic.shareCode, clinic.shareCode.toLowerCase()]) {
      const reply = await call(app.url, `/v1/clinics/share_code/${code}`, { token: patient.token });
      expect(reply.status).toBe(200);
      await expectMatchesOperation(reply, 'clinic.v1.yaml', 'GetClinicByShareCode');
      expect(reply.body.id).toBe(clinic.id);
    }
    expect((await call(app.url, '/v1/clinics/share_code/AAAA-AAAA-AAAA', { token: patient.token })).status).toBe(404);
    expect((await call(app.url, '/v1/clinics/share_code/nonsense', { token: patient.token })).status).toBe(404);
    expect((await call(app.url, `/v1/clinics/share_code/${clinic.shareCode}`)).status).toBe(401);
  });

  it('lists a user its own clinics, or the one of a share code; a server all of them', async () => {
    const owner = await signUp(app, 'owner');
    const other = await signUp(app, 'other');
    const first = await newClinic(owner, { ...CLINIC, name: 'First' });
    const second = await newClinic(owner, { ...CLINIC, name: 'Second' });
    const foreign = await newClinic(other, { ...CLINIC, name: 'Foreign' });

    const mine = await call(app.url, '/v1/clinics', { token: owner.token });
    expect(mine.status).toBe(200);
    await expectMatchesOperation(mine, 'clinic.v1.yaml', 'ListClinics');
    expect(mine.body.map((clinic: { id: string }) => clinic.id)).toEqual([first.id, second.id]);

    const byCode = await call(app.url, `/v1/clinics?shareCode=${foreign.shareCode.toLowerCase()}`, {
      token: owner.token,
    });
    expect(byCode.body.map((clinic: { id: string }) => clinic.id)).toEqual([foreign.id]);

    const all = await call(app.url, `/v1/clinics?createdTimeStart=${first.createdTime}&limit=1000`, { token: server });
    expect(all.status).toBe(200);
    expect(all.body.map((clinic: { id: string }) => clinic.id)).toEqual(
      expect.arrayContaining([first.id, second.id, foreign.id]),
    );
    expect((await call(app.url, '/v1/clinics')).status).toBe(401);
  });

  it('filters by creation time (start inclusive, end exclusive) and ehrEnabled, ignoring unknown parameters', async () => {
    const owner = await signUp(app, 'owner');
    const first = await newClinic(owner, { ...CLINIC, name: 'First' });
    const second = await newClinic(owner, { ...CLINIC, name: 'Second' });
    const ids = async (query: string) =>
      (await call(app.url, `/v1/clinics?${query}`, { token: owner.token })).body.map((c: { id: string }) => c.id);
    expect(await ids(`createdTimeStart=${second.createdTime}`)).toEqual([second.id]);
    expect(await ids(`createdTimeEnd=${second.createdTime}`)).toEqual([first.id]);
    expect(await ids(`createdTimeStart=${first.createdTime}&createdTimeEnd=${first.createdTime}`)).toEqual([]);
    expect(await ids('ehrEnabled=true')).toEqual([]);
    expect(await ids('ehrEnabled=false&whatever=1')).toEqual([first.id, second.id]);
    for (const [query, field] of [
      ['createdTimeStart=yesterday', 'createdTimeStart'],
      ['createdTimeEnd=2024-02-30T00:00:00Z', 'createdTimeEnd'],
      ['ehrEnabled=yes', 'ehrEnabled'],
      ['limit=0', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=ten', 'limit'],
      ['offset=-1', 'offset'],
    ]) {
      const reply = await call(app.url, `/v1/clinics?${query}`, { token: owner.token });
      expect({ query, status: reply.status }).toEqual({ query, status: 400 });
      expect(reply.body.reason).toContain(field);
    }
  });

  it('pages with offset and limit: default 10, past the end empty', async () => {
    const owner = await signUp(app, 'owner');
    const created = [];
    for (let i = 0; i < 12; i++) created.push((await newClinic(owner, { ...CLINIC, name: `Clinic ${i}` })).id);
    const ids = async (query: string) =>
      (await call(app.url, `/v1/clinics?${query}`, { token: owner.token })).body.map((c: { id: string }) => c.id);
    expect(await ids('')).toEqual(created.slice(0, 10));
    expect(await ids('offset=10')).toEqual(created.slice(10));
    expect(await ids('offset=3&limit=2')).toEqual(created.slice(3, 5));
    expect(await ids('offset=12')).toEqual([]);
    expect(await ids('offset=500')).toEqual([]);
  });

  it('lists the clinics of a clinician with its membership, for that user and servers', async () => {
    const { clinic, admin, member, outsider } = await clinicWithStaff();
    for (const token of [member.token, server]) {
      const reply = await call(app.url, `/v1/clinicians/${member.userid}/clinics`, { token });
      expect(reply.status).toBe(200);
      await expectMatchesOperation(reply, 'clinic.v1.yaml', 'ListClinicsForClinician');
      expect(reply.body).toEqual([
        {
          clinic,
          clinician: expect.objectContaining({ id: member.userid, email: member.email, roles: ['CLINIC_MEMBER'] }),
        },
      ]);
    }
    expect((await call(app.url, `/v1/clinicians/${member.userid}/clinics`, { token: admin.token })).status).toBe(403);
    expect((await call(app.url, `/v1/clinicians/${member.userid}/clinics`, { token: outsider.token })).status).toBe(
      403,
    );
    expect((await call(app.url, `/v1/clinicians/${member.userid}/clinics`)).status).toBe(401);
    expect((await call(app.url, `/v1/clinicians/${outsider.userid}/clinics`, { token: outsider.token })).body).toEqual(
      [],
    );
    expect((await call(app.url, `/v1/clinicians/nope/clinics`, { token: server })).status).toBe(400);
    expect((await call(app.url, `/v1/clinicians/${member.userid}/clinics?limit=0`, { token: server })).status).toBe(
      400,
    );
  });
});

const CLINIC_QUERY = `query ($id: ID!) { clinic(id: $id) {
  id name shareCode clinicType clinicSize preferredBgUnits timezone phoneNumbers { type number }
  suppressedNotifications { patientClinicInvitation } patientTags { id name } lastDeletedPatientTag { id }
  clinicians(first: 10) { totalCount nodes { userId email roles } } } }`;

describe('clinics over GraphQL', () => {
  it('creates, reads, updates and lists clinics with GraphQL enum values', async () => {
    const owner = await signUp(app, 'owner');
    const created = await graphql(
      app.url,
      `
        mutation ($input: CreateClinicInput!) {
          createClinic(input: $input) {
            clinic {
              id
              shareCode
              clinicType
              clinicSize
              preferredBgUnits
            }
          }
        }
      `,
      {
        input: {
          name: 'GraphQL clinic',
          clinicType: 'HEALTHCARE_SYSTEM',
          clinicSize: 'SIZE_1000_PLUS',
          preferredBgUnits: 'MMOL_L',
          phoneNumbers: [{ number: '555' }],
          timezone: 'UTC',
        },
      },
      owner.token,
    );
    expect(created.body.errors).toBeUndefined();
    const { id, shareCode } = created.body.data.createClinic.clinic;
    expect(created.body.data.createClinic.clinic).toMatchObject({
      clinicType: 'HEALTHCARE_SYSTEM',
      clinicSize: 'SIZE_1000_PLUS',
      preferredBgUnits: 'MMOL_L',
    });
    const rest = await call(app.url, `/v1/clinics/${id}`, { token: owner.token });
    expect(rest.body).toMatchObject({
      clinicType: 'healthcare_system',
      clinicSize: '1000+',
      preferredBgUnits: 'mmol/L',
    });
    expect(rest.body.phoneNumbers).toEqual([{ number: '555' }]);

    const read = await graphql(app.url, CLINIC_QUERY, { id }, owner.token);
    expect(read.body.data.clinic).toMatchObject({
      id,
      shareCode,
      phoneNumbers: [{ type: null, number: '555' }],
      suppressedNotifications: null,
      patientTags: [],
      lastDeletedPatientTag: null,
      clinicians: { totalCount: 1, nodes: [{ userId: owner.userid, email: owner.email, roles: ['CLINIC_ADMIN'] }] },
    });

    const updated = await graphql(
      app.url,
      'mutation ($input: UpdateClinicInput!) { updateClinic(input: $input) { clinic { name timezone clinicType } } }',
      { input: { id, name: 'Renamed', preferredBgUnits: 'MG_DL' } },
      owner.token,
    );
    expect(updated.body.data.updateClinic.clinic).toEqual({ name: 'Renamed', timezone: null, clinicType: null });

    const mine = await graphql(app.url, '{ myClinics { totalCount nodes { id } } }', {}, owner.token);
    expect(mine.body.data.myClinics).toEqual({ totalCount: 1, nodes: [{ id }] });
    const byCode = await graphql(
      app.url,
      'query ($code: String!) { clinicByShareCode(shareCode: $code) { id } }',
      { code: shareCode.toLowerCase() },
      owner.token,
    );
    expect(byCode.body.data.clinicByShareCode).toEqual({ id });
  });

  it('answers null with NOT_FOUND, FORBIDDEN or BAD_USER_INPUT naming the field', async () => {
    const owner = await signUp(app, 'owner');
    const outsider = await signUp(app, 'outsider');
    const clinic = await newClinic(owner);
    const codeOf = async (id: string, token?: string) => {
      const reply = await graphql(app.url, 'query ($id: ID!) { clinic(id: $id) { id } }', { id }, token);
      expect(reply.body.data?.clinic ?? null).toBeNull();
      return reply.body.errors[0].extensions;
    };
    expect((await codeOf(clinic.id, outsider.token)).code).toBe('FORBIDDEN');
    expect((await codeOf('0123456789abcdef01234567', outsider.token)).code).toBe('NOT_FOUND');
    expect(await codeOf('nope', outsider.token)).toMatchObject({ code: 'BAD_USER_INPUT', field: 'clinicId' });
    expect((await codeOf(clinic.id)).code).toBe('UNAUTHENTICATED');
    const servers = await graphql(app.url, '{ myClinics { nodes { id } } }', {}, server);
    expect(servers.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const bad = await graphql(
      app.url,
      'mutation ($input: CreateClinicInput!) { createClinic(input: $input) { clinic { id } } }',
      { input: { name: 'x', preferredBgUnits: 'MG_DL', timezone: 'Nowhere/Land' } },
      owner.token,
    );
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'timezone' });
  });

  it('lists clinics for servers with a filter and keyset cursors', async () => {
    const owner = await signUp(app, 'owner');
    const first = await newClinic(owner);
    const second = await newClinic(owner);
    const query = `query ($filter: ClinicFilter, $after: String) {
      clinics(filter: $filter, first: 1, after: $after) { nodes { id } pageInfo { hasNextPage endCursor } } }`;
    const filter = { createdTimeStart: first.createdTime };
    const page1 = await graphql(app.url, query, { filter }, server);
    expect(page1.body.data.clinics.nodes).toEqual([{ id: first.id }]);
    expect(page1.body.data.clinics.pageInfo.hasNextPage).toBe(true);
    const page2 = await graphql(app.url, query, { filter, after: page1.body.data.clinics.pageInfo.endCursor }, server);
    expect(page2.body.data.clinics.nodes[0]).toEqual({ id: second.id });
    const foreign = await graphql(
      app.url,
      query,
      { filter: {}, after: page1.body.data.clinics.pageInfo.endCursor },
      server,
    );
    expect(foreign.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
  });

  it('prices a clinic list with its clinicians within the cost limits', async () => {
    const owner = await signUp(app, 'owner');
    await newClinic(owner);
    const reply = await graphql(
      app.url,
      '{ myClinics(first: 20) { nodes { id patientTags { id } clinicians(first: 20) { nodes { userId clinic { id } } } } } }',
      {},
      owner.token,
    );
    expect(reply.body.errors).toBeUndefined();
    expect(reply.body.data.myClinics.nodes).toHaveLength(1);
  });

  it('answers a page of clinics with their clinicians in SQL statements that do not grow with the page', async () => {
    const owner = await signUp(app, 'owner');
    for (let i = 0; i < 8; i++) await newClinic(owner, { ...CLINIC, name: `Clinic ${i}` });
    const query = `query ($first: Int) { myClinics(first: $first) { totalCount nodes { id patientTags { id }
      clinicians(first: 5) { totalCount nodes { userId clinic { id } } } } } }`;
    const statements = async (first: number) => {
      const reply = await graphql(app.url, query, { first }, owner.token);
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data.myClinics.nodes).toHaveLength(first);
      expect(reply.body.data.myClinics.nodes[first - 1].clinicians.totalCount).toBe(1);
      return Number(reply.headers.get('x-sql-statements'));
    };
    const two = await statements(2);
    expect(await statements(8)).toBe(two);
  });
});
