import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call, graphql, type Reply } from '../support/http';
import { expectMatchesOperation } from '../support/openapi';

/**
 * Clinic patients over REST (Tidepool's clinic routes) and GraphQL: custodial patients, patients
 * who invite the clinic, tags, reviews, the patient list, and who may do each.
 */
let app: TestApp;
let server: string;
let admin: TestAccount;
let member: TestAccount;
let prescriber: TestAccount;
let outsider: TestAccount;
let clinicId: string;
let shareCode: string;

const CLINIC = {
  name: 'Patients Clinic',
  preferredBgUnits: 'mg/dL',
  phoneNumbers: [{ type: 'main', number: '555-0101' }],
};
const PATIENT = {
  fullName: 'James Jellyfish',
  birthDate: '1984-08-24',
  email: 'james.jellyfish@example.org',
  mrn: 'MRN-1',
};

const as = (token: string | undefined, path: string, init: Parameters<typeof call>[2] = {}) =>
  call(app.url, path, { token, ...init });
const patients = (suffix = '') => `/v1/clinics/${clinicId}/patients${suffix}`;

async function newClinic(owner: TestAccount): Promise<{ id: string; shareCode: string }> {
  const reply = await as(owner.token, '/v1/clinics', { json: CLINIC });
  expect(reply.status).toBe(200);
  return reply.body;
}

async function addClinician(id: string, account: TestAccount, roles: string[]) {
  const reply = await as(server, `/v1/clinics/${id}/clinicians`, {
    json: { id: account.userid, email: account.email, name: 'Clinician', roles },
  });
  expect(reply.status).toBe(200);
}

async function createPatient(fields: Record<string, unknown> = {}, token = member.token, clinic = clinicId) {
  return as(token, `/v1/clinics/${clinic}/patients`, { json: { ...PATIENT, email: undefined, ...fields } });
}

async function createTag(name: string, token = member.token, clinic = clinicId): Promise<Reply> {
  return as(token, `/v1/clinics/${clinic}/patient_tags`, { json: { name } });
}

/** A user invites the clinic by share code; the clinic's member finds the invitation and accepts it. */
async function becomePatient(
  user: TestAccount,
  permissions: Record<string, object>,
  code = shareCode,
  clinic = clinicId,
) {
  const invited = await as(user.token, `/confirm/send/invite/${user.userid}/clinic`, {
    json: { shareCode: code, permissions },
  });
  expect(invited.status).toBe(200);
  const listed = await as(member.token, `/v1/clinics/${clinic}/invites/patients`);
  const invite = (listed.body as { key: string; creatorId: string }[]).find(
    (entry) => entry.creatorId === user.userid,
  )!;
  const accepted = await as(member.token, `/v1/clinics/${clinic}/invites/patients/${invite.key}`, {
    method: 'PUT',
    json: { fullName: 'Invited Patient', birthDate: '2001-02-03' },
  });
  expect(accepted.status).toBe(200);
  return accepted;
}

function expectRefusal(reply: Reply, status: number, field?: string) {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual(expect.objectContaining({ code: status }));
  if (field) expect(reply.body.reason).toContain(field);
}

beforeAll(async () => {
  app = await startTestApp();
  server = await serverToken(app);
  [admin, member, prescriber, outsider] = await Promise.all(
    ['admin', 'member', 'prescriber', 'outsider'].map((name) => signUp(app, name)),
  );
  ({ id: clinicId, shareCode } = await newClinic(admin));
  await addClinician(clinicId, member, ['CLINIC_MEMBER']);
  await addClinician(clinicId, prescriber, ['PRESCRIBER']);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe('custodial patients', () => {
  it('a member creates one: the clinic is its custodian, and the reply is a Tidepool patient', async () => {
    const reply = await createPatient({ email: PATIENT.email });
    await expectMatchesOperation(reply, 'clinic.v1.yaml', 'CreatePatientAccount');
    expect(reply.body).toEqual(
      expect.objectContaining({
        id: expect.stringMatching(/^[0-9a-f]{10}$/),
        ...PATIENT,
        tags: [],
        permissions: { custodian: {}, view: {}, upload: {}, note: {} },
        dataSources: null,
        reviews: [],
      }),
    );
    const read = await as(admin.token, patients(`/${reply.body.id}`));
    await expectMatchesOperation(read, 'clinic.v1.yaml', 'GetPatient');
    expect(read.body).toEqual(reply.body);
    // The clinic's clinicians reach the account itself as custodians do.
    const account = await as(prescriber.token, `/auth/user/${reply.body.id}`);
    expect(account.status).toBe(200);
    expect(account.body.emails).toEqual([PATIENT.email]);
  });

  it('refuses each bad field with a 400 naming it', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ fullName: '' }, 'fullName'],
      [{ fullName: 42 }, 'fullName'],
      [{ fullName: undefined }, 'fullName'],
      [{ birthDate: '1984-02-30' }, 'birthDate'],
      [{ birthDate: '24/08/1984' }, 'birthDate'],
      [{ birthDate: '2999-01-01' }, 'birthDate'],
      [{ birthDate: undefined }, 'birthDate'],
      [{ email: 'not-an-email' }, 'email'],
      [{ mrn: ' ' }, 'mrn'],
      [{ tags: 'abc' }, 'tags'],
      [{ tags: ['nothex'] }, 'tags'],
      [{ tags: ['0123456789abcdef01234567'] }, 'tags'],
    ];
    for (const [fields, field] of cases) expectRefusal(await createPatient(fields), 400, field);
    expectRefusal(
      await as(member.token, patients(), {
        method: 'POST',
        body: '[1]',
        headers: { 'content-type': 'application/json' },
      }),
      400,
    );
  });

  it('an email already taken by an account is a 409', async () => {
    expectRefusal(await createPatient({ email: outsider.email }), 409);
  });

  it('bad ids are 400 naming the parameter, unknown ones 404', async () => {
    expectRefusal(await as(member.token, '/v1/clinics/nothex/patients'), 400, 'clinicId');
    expectRefusal(await as(member.token, '/v1/clinics/0123456789abcdef01234567/patients'), 404);
    expectRefusal(await as(member.token, patients('/not-a-user')), 400, 'patientId');
    expectRefusal(await as(member.token, patients('/0123456789')), 404);
  });

  it('a member updates the record: the body replaces it, the required fields stay required', async () => {
    const { body: created } = await createPatient({ mrn: 'OLD' });
    const tag = (await createTag('Updated')).body.id;
    const updated = await as(member.token, patients(`/${created.id}`), {
      method: 'PUT',
      json: { ...created, fullName: 'Renamed Patient', birthDate: '1990-01-01', mrn: undefined, tags: [tag] },
    });
    await expectMatchesOperation(updated, 'clinic.v1.yaml', 'UpdatePatient');
    expect(updated.body).toEqual(
      expect.objectContaining({ fullName: 'Renamed Patient', birthDate: '1990-01-01', tags: [tag] }),
    );
    expect(updated.body.mrn).toBeUndefined();
    const missing = await as(member.token, patients(`/${created.id}`), {
      method: 'PUT',
      json: { birthDate: '1990-01-01' },
    });
    expectRefusal(missing, 400, 'fullName');
    expectRefusal(await as(prescriber.token, patients(`/${created.id}`), { method: 'PUT', json: created }), 403);
  });

  it('only an admin (or a server) removes a patient, and the clinic loses its access at once', async () => {
    const { body: created } = await createPatient();
    expectRefusal(await as(member.token, patients(`/${created.id}`), { method: 'DELETE' }), 403);
    const removed = await as(admin.token, patients(`/${created.id}`), { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expectRefusal(await as(member.token, patients(`/${created.id}`)), 404);
    expectRefusal(await as(member.token, `/auth/user/${created.id}`), 403);
    expectRefusal(await as(admin.token, patients(`/${created.id}`), { method: 'DELETE' }), 404);
  });

  it('adding an existing account directly is for servers only', async () => {
    const user = await signUp(app, 'direct');
    const body = { permissions: { view: {} }, fullName: 'Direct Patient', birthDate: '2000-01-01' };
    expectRefusal(await as(member.token, patients(`/${user.userid}`), { json: body }), 403);
    expectRefusal(
      await as(server, patients(`/${user.userid}`), { json: { ...body, permissions: { root: {} } } }),
      400,
      'permissions',
    );
    const added = await as(server, patients(`/${user.userid}`), { json: body });
    await expectMatchesOperation(added, 'clinic.v1.yaml', 'CreatePatientFromUser');
    expect(added.body).toEqual(
      expect.objectContaining({ id: user.userid, permissions: { view: {} }, email: user.email }),
    );
    expectRefusal(await as(server, patients(`/${user.userid}`), { json: body }), 409);
    expectRefusal(await as(server, patients('/0123456789'), { json: body }), 404);
  });

  it('who may list, read and create: members and admins and servers; prescribers and others not', async () => {
    const cases: [string | undefined, number][] = [
      [admin.token, 200],
      [member.token, 200],
      [server, 200],
      [prescriber.token, 403],
      [outsider.token, 403],
      [undefined, 401],
    ];
    for (const [token, status] of cases) {
      expect((await as(token, patients())).status).toBe(status);
      expect((await createPatient({}, token ?? '')).status).toBe(status);
    }
  });
});

describe('the patient list', () => {
  let listClinic: string;
  let tagA: string;
  let tagB: string;

  beforeAll(async () => {
    ({ id: listClinic } = await newClinic(admin));
    tagA = (await createTag('Pump', admin.token, listClinic)).body.id;
    tagB = (await createTag('CGM', admin.token, listClinic)).body.id;
    const names = ['delta Dawn', 'Alpha Adams', 'charlie Chaplin', 'Bravo Baker', 'Echo Eagle', 'Foxtrot Fox'];
    for (const [index, name] of names.entries()) {
      const reply = await createPatient(
        {
          fullName: name,
          birthDate: `19${80 + index}-0${index + 1}-15`,
          mrn: `MR${index}00`,
          tags: index % 2 ? [tagA, tagB] : [tagA],
        },
        admin.token,
        listClinic,
      );
      expect(reply.status).toBe(200);
    }
    for (let index = 0; index < 8; index++) await createPatient({ fullName: `Zulu ${index}` }, admin.token, listClinic);
  });

  const list = (query: string, token = admin.token) => as(token, `/v1/clinics/${listClinic}/patients${query}`);
  const names = (reply: Reply) => (reply.body.data as { fullName: string }[]).map((patient) => patient.fullName);

  it('pages with limit (10 by default) and offset, and counts the matches and the clinic', async () => {
    const first = await list('');
    await expectMatchesOperation(first, 'clinic.v1.yaml', 'ListPatients');
    expect(first.body.data).toHaveLength(10);
    expect(first.body.meta).toEqual({ count: 14, totalCount: 14 });
    const rest = await list('?offset=10&limit=10');
    expect(rest.body.data).toHaveLength(4);
    expect((await list('?offset=14')).body).toEqual({ data: [], meta: { count: 14, totalCount: 14 } });
    expect((await list('?offset=500&limit=3')).body.data).toEqual([]);
    expectRefusal(await list('?limit=0'), 400, 'limit');
    expectRefusal(await list('?limit=-1'), 400, 'limit');
    expectRefusal(await list('?offset=-1'), 400, 'offset');
    expectRefusal(await list('?limit=ten'), 400, 'limit');
  });

  it('sorts by fullName ignoring case, birthDate and lastReviewed, both ways', async () => {
    expect(names(await list('?sort=%2BfullName&limit=4'))).toEqual([
      'Alpha Adams',
      'Bravo Baker',
      'charlie Chaplin',
      'delta Dawn',
    ]);
    expect(names(await list('?sort=+fullName&limit=2'))).toEqual(['Alpha Adams', 'Bravo Baker']);
    expect(names(await list('?sort=-fullName&limit=2'))).toEqual(['Zulu 7', 'Zulu 6']);
    const byBirth = (await list('?sort=-birthDate&limit=100')).body.data.map(
      (patient: { birthDate: string }) => patient.birthDate,
    );
    expect(byBirth[0]).toBe('1985-06-15');
    expect([...byBirth].sort().reverse()).toEqual(byBirth);
    expect((await list('?sort=%2BbirthDate&limit=1')).body.data[0].fullName).toBe('delta Dawn');
    const all = await list('?sort=-lastReviewed&limit=100');
    expect(all.body.data).toHaveLength(14);
    for (const sort of ['fullName', '-name', '+cgm.timeInLowPercent', '-lastReviewed,fullName'])
      expectRefusal(await list(`?sort=${encodeURIComponent(sort)}`), 400, 'sort');
  });

  it('searches name, email and MRN in any case, filters by tags (all of them) and lastReviewed', async () => {
    expect(names(await list('?search=CHAPLIN'))).toEqual(['charlie Chaplin']);
    expect(names(await list('?search=mr300'))).toEqual(['Bravo Baker']);
    expect((await list('?search=zulu')).body.meta).toEqual({ count: 8, totalCount: 14 });
    expect((await list('?search=%25')).body.data).toEqual([]);
    expect((await list(`?tags=${tagA}`)).body.meta.count).toBe(6);
    expect(names(await list(`?tags=${tagA},${tagB}&sort=%2BfullName`))).toEqual([
      'Alpha Adams',
      'Bravo Baker',
      'Foxtrot Fox',
    ]);
    expectRefusal(await list('?tags=nothex'), 400, 'tags');
    expectRefusal(await list('?lastReviewed=yesterday'), 400, 'lastReviewed');
    const reviewed = (await list('?search=Echo')).body.data[0].id;
    expect(
      (await as(admin.token, `/v1/clinics/${listClinic}/patients/${reviewed}/reviews`, { method: 'PUT' })).status,
    ).toBe(200);
    expect(names(await list(`?lastReviewed=${encodeURIComponent(new Date().toISOString())}`))).toEqual(['Echo Eagle']);
    expect((await list('?lastReviewed=2000-01-01T00:00:00Z')).body.data).toEqual([]);
    expect(names(await list('?sort=-lastReviewed&limit=1'))).toEqual(['Echo Eagle']);
  });

  it('refuses malformed summary parameters by name, and ignores unknown ones', async () => {
    for (const parameter of [
      'cgm.timeInVeryLowPercent=0.04',
      'bgm.averageGlucoseMmol=%3Cfive',
      'sortType=both',
      'period=2d',
      'offsetPeriods=maybe',
    ])
      expectRefusal(await list(`?${parameter}`), 400, parameter.split('=')[0]);
    expect((await list('?whatever=1')).status).toBe(200);
  });
});

describe('patient tags', () => {
  let tagClinic: string;

  beforeAll(async () => {
    ({ id: tagClinic } = await newClinic(admin));
    await addClinician(tagClinic, member, ['CLINIC_MEMBER']);
  });

  it('members create and rename; names are unique ignoring case and follow Tidepool’s rule', async () => {
    const created = await createTag('Type 1', member.token, tagClinic);
    await expectMatchesOperation(created, 'clinic.v1.yaml', 'CreatePatientTag');
    expect(created.body).toEqual({ id: expect.stringMatching(/^[0-9a-f]{24}$/), name: 'Type 1' });
    expectRefusal(await createTag('TYPE 1', member.token, tagClinic), 409);
    for (const name of ['', ' lead', 'x'.repeat(21), 'semi;colon'])
      expectRefusal(await createTag(name, member.token, tagClinic), 400, 'name');
    expectRefusal(await createTag('Anything', prescriber.token, tagClinic), 403);
    const renamed = await as(member.token, `/v1/clinics/${tagClinic}/patient_tags/${created.body.id}`, {
      method: 'PUT',
      json: { name: 'Type One' },
    });
    await expectMatchesOperation(renamed, 'clinic.v1.yaml', 'UpdatePatientTag');
    expect(renamed.body).toEqual({ id: created.body.id, name: 'Type One' });
    const unknown = await as(member.token, `/v1/clinics/${tagClinic}/patient_tags/0123456789abcdef01234567`, {
      method: 'PUT',
      json: { name: 'X' },
    });
    expectRefusal(unknown, 404);
    expectRefusal(
      await as(member.token, `/v1/clinics/${tagClinic}/patient_tags/bad`, { method: 'PUT', json: { name: 'X' } }),
      400,
      'patientTagId',
    );
  });

  it('deleting (admins only) takes the tag off every patient and records lastDeletedPatientTag', async () => {
    const tag = (await createTag('Doomed', member.token, tagClinic)).body.id;
    const kept = (await createTag('Kept', member.token, tagClinic)).body.id;
    const patient = (await createPatient({ tags: [tag, kept] }, member.token, tagClinic)).body.id;
    const path = `/v1/clinics/${tagClinic}/patient_tags/${tag}`;
    expectRefusal(await as(member.token, path, { method: 'DELETE' }), 403);
    expect((await as(admin.token, path, { method: 'DELETE' })).status).toBe(204);
    expect((await as(member.token, `/v1/clinics/${tagClinic}/patients/${patient}`)).body.tags).toEqual([kept]);
    const clinic = await as(member.token, `/v1/clinics/${tagClinic}`);
    expect(clinic.body.lastDeletedPatientTag).toEqual({ id: tag, name: 'Doomed' });
    expect(clinic.body.patientTags.map((entry: { id: string }) => entry.id)).not.toContain(tag);
    expectRefusal(await as(admin.token, path, { method: 'DELETE' }), 404);
  });

  it('a clinic holds at most 50 tags', async () => {
    const { id } = await newClinic(admin);
    for (let index = 0; index < 50; index++) expect((await createTag(`tag${index}`, admin.token, id)).status).toBe(200);
    expectRefusal(await createTag('one-too-many', admin.token, id), 409);
  });
});

describe('reviews', () => {
  it('clinicians mark a patient reviewed: newest first, ten kept; only the last reviewer reverts', async () => {
    const patient = (await createPatient()).body.id;
    const path = patients(`/${patient}/reviews`);
    expectRefusal(await as(member.token, path, { method: 'DELETE' }), 404);
    let last: Reply | undefined;
    for (let index = 0; index < 11; index++)
      last = await as(index % 2 ? admin.token : member.token, path, { method: 'PUT' });
    await expectMatchesOperation(last!, 'clinic.v1.yaml', 'UpdatePatientReviews');
    expect(last!.body).toHaveLength(10);
    expect(last!.body[0].clinicianId).toBe(member.userid);
    const times = (last!.body as { time: string }[]).map((review) => review.time);
    expect([...times].sort().reverse()).toEqual(times);
    expectRefusal(await as(admin.token, path, { method: 'DELETE' }), 409);
    const reverted = await as(member.token, path, { method: 'DELETE' });
    await expectMatchesOperation(reverted, 'clinic.v1.yaml', 'DeletePatientReviews');
    expect(reverted.body).toEqual(last!.body.slice(1));
    expect(reverted.body[0].clinicianId).toBe(admin.userid);
    expectRefusal(await as(prescriber.token, path, { method: 'PUT' }), 403);
    expectRefusal(await as(server, path, { method: 'PUT' }), 403);
    expect((await as(server, path, { method: 'DELETE' })).status).toBe(200);
  });
});

describe('patients who invite the clinic', () => {
  it('invite by share code, the clinic accepts, the patient changes and revokes its permissions', async () => {
    const user = await signUp(app, 'inviter');
    const invite = (json: unknown, token = user.token) =>
      as(token, `/confirm/send/invite/${user.userid}/clinic`, { json });
    expectRefusal(await invite({ shareCode, permissions: { view: {} } }, outsider.token), 403);
    expectRefusal(await invite({ shareCode, permissions: {} }), 400, 'permissions');
    expectRefusal(await invite({ shareCode, permissions: { custodian: {} } }), 400, 'permissions');
    expectRefusal(await invite({ permissions: { view: {} } }), 400, 'shareCode');
    expectRefusal(await invite({ shareCode: 'XXXX-XXXX-XXXX', permissions: { view: {} } }), 404);
    const sent = await invite({ shareCode: shareCode.toLowerCase(), permissions: { view: {}, note: {} } });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual(
      expect.objectContaining({ key: expect.any(String), creatorId: user.userid, status: 'pending' }),
    );
    expectRefusal(await invite({ shareCode, permissions: { view: {} } }), 409);

    const listed = await as(member.token, patients().replace('/patients', '/invites/patients'));
    await expectMatchesOperation(listed, 'clinic.v1.yaml', 'GetPatientInvites');
    expect(listed.body.map((entry: { key: string }) => entry.key)).toContain(sent.body.key);
    expectRefusal(await as(prescriber.token, `/v1/clinics/${clinicId}/invites/patients`), 403);
    expectRefusal(await as(outsider.token, `/v1/clinics/${clinicId}/invites/patients`), 403);

    const acceptPath = `/v1/clinics/${clinicId}/invites/patients/${sent.body.key}`;
    expectRefusal(await as(prescriber.token, acceptPath, { method: 'PUT' }), 403);
    expectRefusal(
      await as(member.token, `/v1/clinics/${clinicId}/invites/patients/0123456789abcdef01234567`, { method: 'PUT' }),
      404,
    );
    const accepted = await as(member.token, acceptPath, {
      method: 'PUT',
      json: { mrn: 'INV-1', birthDate: '1999-09-09' },
    });
    await expectMatchesOperation(accepted, 'clinic.v1.yaml', 'AcceptPatientInvitation');
    expect(accepted.body).toEqual(
      expect.objectContaining({
        id: user.userid,
        fullName: user.email,
        email: user.email,
        mrn: 'INV-1',
        permissions: { view: {}, note: {} },
      }),
    );
    expectRefusal(await as(member.token, acceptPath, { method: 'PUT' }), 404);
    expectRefusal(await invite({ shareCode, permissions: { view: {} } }), 409);

    const clinics = await as(user.token, `/v1/patients/${user.userid}/clinics`);
    await expectMatchesOperation(clinics, 'clinic.v1.yaml', 'ListClinicsForPatient');
    expect(clinics.body).toEqual([
      { patient: expect.objectContaining({ id: user.userid }), clinic: expect.objectContaining({ id: clinicId }) },
    ]);
    expectRefusal(await as(outsider.token, `/v1/patients/${user.userid}/clinics`), 403);
    expect((await as(server, `/v1/patients/${user.userid}/clinics?limit=1&offset=1`)).body).toEqual([]);

    const permissionsPath = patients(`/${user.userid}/permissions`);
    expectRefusal(await as(member.token, permissionsPath, { method: 'PUT', json: { view: {} } }), 403);
    expectRefusal(
      await as(user.token, permissionsPath, { method: 'PUT', json: { custodian: {} } }),
      400,
      'permissions',
    );
    const changed = await as(user.token, permissionsPath, { method: 'PUT', json: { view: {}, upload: {} } });
    await expectMatchesOperation(changed, 'clinic.v1.yaml', 'UpdatePatientPermissions');
    expect(changed.body).toEqual({ view: {}, upload: {} });
    expect((await as(user.token, `${permissionsPath}/upload`, { method: 'DELETE' })).status).toBe(204);
    expectRefusal(await as(user.token, `${permissionsPath}/root`, { method: 'DELETE' }), 400, 'permission');
    expect((await as(member.token, patients(`/${user.userid}`))).body.permissions).toEqual({ view: {} });
    expect((await as(user.token, `${permissionsPath}/view`, { method: 'DELETE' })).status).toBe(204);
    expectRefusal(await as(member.token, patients(`/${user.userid}`)), 404);
  });

  it('an accepted invitation without a birth date leaves it null until the clinic records one', async () => {
    const user = await signUp(app, 'undated');
    await as(user.token, `/confirm/send/invite/${user.userid}/clinic`, {
      json: { shareCode, permissions: { view: {} } },
    });
    const listed = await as(member.token, `/v1/clinics/${clinicId}/invites/patients`);
    const key = listed.body.find((entry: { creatorId: string }) => entry.creatorId === user.userid).key;
    const accepted = await as(member.token, `/v1/clinics/${clinicId}/invites/patients/${key}`, { method: 'PUT' });
    expect(accepted.body).toEqual(expect.objectContaining({ id: user.userid, fullName: user.email, birthDate: null }));
  });

  it('a pending invitation is withdrawn by its user or declined by the clinic, not by others', async () => {
    const user = await signUp(app, 'withdrawer');
    const send = () =>
      as(user.token, `/confirm/send/invite/${user.userid}/clinic`, { json: { shareCode, permissions: { view: {} } } });
    const first = (await send()).body.key;
    const path = (key: string) => `/v1/clinics/${clinicId}/invites/patients/${key}`;
    expectRefusal(await as(outsider.token, path(first), { method: 'DELETE' }), 403);
    expect((await as(user.token, path(first), { method: 'DELETE' })).status).toBe(204);
    const second = (await send()).body.key;
    expect((await as(member.token, path(second), { method: 'DELETE' })).status).toBe(204);
    expectRefusal(await as(member.token, path(second), { method: 'DELETE' }), 404);
  });

  it('a deleted account leaves no patient rows or invitations behind', async () => {
    const user = await signUp(app, 'leaver');
    await becomePatient(user, { view: {} });
    const other = await newClinic(admin);
    await as(user.token, `/confirm/send/invite/${user.userid}/clinic`, {
      json: { shareCode: other.shareCode, permissions: { view: {} } },
    });
    const deleted = await as(user.token, `/auth/user/${user.userid}`, {
      method: 'DELETE',
      json: { password: user.password },
    });
    expect(deleted.status).toBe(204);
    expectRefusal(await as(server, patients(`/${user.userid}`)), 404);
    const invites = await as(server, `/v1/clinics/${other.id}/invites/patients`);
    expect(invites.body).toEqual([]);
  });
});

describe('GraphQL', () => {
  const gql = (query: string, variables: Record<string, unknown>, token: string) =>
    graphql(app.url, query, variables, token);
  let pageClinic: string;

  beforeAll(async () => {
    ({ id: pageClinic } = await newClinic(admin));
    const tag = (await createTag('Paged', admin.token, pageClinic)).body.id;
    for (let batch = 0; batch < 10; batch++)
      await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          createPatient({ fullName: `Paged ${batch * 10 + index}`, tags: [tag] }, admin.token, pageClinic),
        ),
      );
  }, 60_000);

  const PAGE = `query ($id: ID!, $first: Int, $after: String, $orderBy: ClinicPatientOrder) { clinic(id: $id) {
    patientCount patients(first: $first, after: $after, orderBy: $orderBy) { totalCount pageInfo { hasNextPage endCursor }
      nodes { userId user { userId emails } fullName birthDate mrn email tags { id name } reviews { clinicianId time } lastReviewed permissions } } } }`;

  it('pages a clinic’s patients by keyset cursors in the order asked', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const reply: Reply = await gql(
        PAGE,
        { id: pageClinic, first: 30, after, orderBy: { field: 'FULL_NAME', direction: 'DESC' } },
        admin.token,
      );
      expect(reply.body.errors).toBeUndefined();
      const connection = reply.body.data.clinic.patients;
      expect(connection.totalCount).toBe(100);
      seen.push(...connection.nodes.map((node: { fullName: string }) => node.fullName));
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toHaveLength(100);
    expect(seen).toEqual([...seen].sort((a, b) => b.toLowerCase().localeCompare(a.toLowerCase())));
    const node = (await gql(PAGE, { id: pageClinic, first: 1 }, member.token)).body;
    expect(node.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const foreign = await gql(PAGE, { id: pageClinic, first: 1, after }, admin.token);
    expect(foreign.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((await gql(PAGE, { id: pageClinic, first: 101 }, admin.token)).body.errors?.[0]?.extensions?.code).toBe(
      'BAD_USER_INPUT',
    );
    const badTags = await gql(
      'query ($id: ID!) { clinic(id: $id) { patients(filter: { tags: ["x"] }) { totalCount } } }',
      { id: pageClinic },
      admin.token,
    );
    expect(badTags.body.errors?.[0]?.extensions).toEqual(
      expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'filter.tags' }),
    );
    const longSearch = await gql(
      'query ($id: ID!, $s: String) { clinic(id: $id) { patients(filter: { search: $s }) { totalCount } } }',
      { id: pageClinic, s: 'x'.repeat(101) },
      admin.token,
    );
    expect(longSearch.body.errors?.[0]?.extensions).toEqual(
      expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'filter.search' }),
    );
    const missing = await gql(
      'query { clinic(id: "0123456789abcdef01234567") { patients { totalCount } } }',
      {},
      admin.token,
    );
    expect(missing.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('a page of 100 patients with their users, tags and reviews costs as many SQL statements as a page of 5', async () => {
    const statements = async (first: number) => {
      const reply = await gql(PAGE, { id: pageClinic, first }, admin.token);
      expect(reply.body.errors).toBeUndefined();
      const nodes = reply.body.data.clinic.patients.nodes;
      expect(nodes).toHaveLength(first);
      expect(nodes[0].user.userId).toBe(nodes[0].userId);
      expect(nodes[0].tags).toEqual([{ id: expect.any(String), name: 'Paged' }]);
      return Number(reply.headers.get('x-sql-statements'));
    };
    expect(await statements(100)).toBe(await statements(5));
  });

  it('runs every patient mutation', async () => {
    const mutate = async (name: string, input: Record<string, unknown>, selection: string, token = admin.token) => {
      const reply = await gql(
        `mutation ($input: ${input.__type}!) { ${name}(input: $input) { ${selection} } }`,
        {
          input: Object.fromEntries(Object.entries(input).filter(([key]) => key !== '__type')),
        },
        token,
      );
      expect(reply.body.errors).toBeUndefined();
      return reply.body.data[name];
    };
    const { id, shareCode: code } = await newClinic(admin);
    const tag = await mutate(
      'createPatientTag',
      { __type: 'CreatePatientTagInput', clinicId: id, name: 'GraphQL' },
      'tag { id name }',
    );
    await mutate(
      'renamePatientTag',
      { __type: 'RenamePatientTagInput', clinicId: id, tagId: tag.tag.id, name: 'GQL' },
      'tag { name }',
    );
    const created = await mutate(
      'createClinicPatient',
      {
        __type: 'CreateClinicPatientInput',
        clinicId: id,
        fullName: 'Graph Patient',
        birthDate: '2010-10-10',
        tags: [tag.tag.id],
      },
      'patient { userId permissions tags { name } }',
    );
    expect(created.patient).toEqual(
      expect.objectContaining({ permissions: ['CUSTODIAN', 'VIEW', 'UPLOAD', 'NOTE'], tags: [{ name: 'GQL' }] }),
    );
    const userId = created.patient.userId;
    await mutate(
      'updateClinicPatient',
      { __type: 'UpdateClinicPatientInput', clinicId: id, userId, mrn: 'G-1' },
      'patient { mrn }',
    );
    const reviewed = await mutate(
      'reviewClinicPatient',
      { __type: 'ClinicPatientInput', clinicId: id, userId },
      'patient { lastReviewed reviews { clinicianId } }',
    );
    expect(reviewed.patient.reviews).toEqual([{ clinicianId: admin.userid }]);
    const reverted = await mutate(
      'revertClinicPatientReview',
      { __type: 'ClinicPatientInput', clinicId: id, userId },
      'patient { lastReviewed }',
    );
    expect(reverted.patient.lastReviewed).toBeNull();
    await mutate('deletePatientTag', { __type: 'DeletePatientTagInput', clinicId: id, tagId: tag.tag.id }, 'tagId');

    const user = await signUp(app, 'graphql-inviter');
    const invite = await mutate(
      'inviteClinic',
      { __type: 'InviteClinicInput', userId: user.userid, shareCode: code, permissions: ['VIEW'] },
      'invite { id clinicId }',
      user.token,
    );
    const pending = await gql(
      'query ($id: ID!) { clinic(id: $id) { patientInvites { id userId permissions } } }',
      { id },
      admin.token,
    );
    expect(pending.body.data.clinic.patientInvites).toEqual([
      { id: invite.invite.id, userId: user.userid, permissions: ['VIEW'] },
    ]);
    await mutate(
      'revokePatientInvite',
      { __type: 'RevokePatientInviteInput', clinicId: id, inviteId: invite.invite.id },
      'invite { id }',
      user.token,
    );
    const again = await mutate(
      'inviteClinic',
      { __type: 'InviteClinicInput', userId: user.userid, shareCode: code, permissions: ['VIEW'] },
      'invite { id }',
      user.token,
    );
    await mutate(
      'acceptPatientInvite',
      { __type: 'AcceptPatientInviteInput', clinicId: id, inviteId: again.invite.id, fullName: 'Accepted' },
      'patient { fullName }',
    );
    const mine = await gql(
      'query ($u: ID!) { patientClinics(userId: $u) { clinicId clinic { id } } }',
      { u: user.userid },
      user.token,
    );
    expect(mine.body.data.patientClinics).toEqual([{ clinicId: id, clinic: { id } }]);
    const changed = await mutate(
      'updateClinicPatientPermissions',
      {
        __type: 'UpdateClinicPatientPermissionsInput',
        clinicId: id,
        userId: user.userid,
        permissions: ['VIEW', 'UPLOAD'],
      },
      'patient { permissions }',
      user.token,
    );
    expect(changed.patient.permissions).toEqual(['VIEW', 'UPLOAD']);
    const revoked = await mutate(
      'revokeClinicPatientPermission',
      { __type: 'RevokeClinicPatientPermissionInput', clinicId: id, userId: user.userid, permission: 'UPLOAD' },
      'patient { permissions }',
      user.token,
    );
    expect(revoked.patient.permissions).toEqual(['VIEW']);
    const removed = await mutate(
      'removeClinicPatient',
      { __type: 'ClinicPatientInput', clinicId: id, userId },
      'clinicId userId',
    );
    expect(removed).toEqual({ clinicId: id, userId });
    const direct = await signUp(app, 'graphql-direct');
    const added = await mutate(
      'addClinicPatient',
      { __type: 'AddClinicPatientInput', clinicId: id, userId: direct.userid, permissions: ['VIEW'] },
      'patient { fullName }',
      server,
    );
    expect(added.patient.fullName).toBe(direct.email);
  });
});
