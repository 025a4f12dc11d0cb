import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { uploadLog } from '../support/content';
import { call } from '../support/http';

/**
 * A clinic's clinicians reach a patient's data exactly as a direct grant of what the patient gave
 * the clinic would let them, through the one access policy, and lose it the moment the patient
 * revokes the share or leaves the clinic.
 */
let app: TestApp;
let server: string;
let admin: TestAccount;
let member: TestAccount;
let prescriber: TestAccount;
let outsider: TestAccount;
let clinicId: string;
let shareCode: string;

const WINDOW = { start: '2024-03-01T00:00:00Z', end: '2024-03-02T00:00:00Z' };

const as = (token: string, path: string, init: Parameters<typeof call>[2] = {}) =>
  call(app.url, path, { token, ...init });
const logsOf = (userId: string, token: string) =>
  as(token, `/v1/users/${userId}/device_logs?startAtTime=${WINDOW.start}&endAtTime=2024-03-03T00:00:00Z`);

/** The user invites the clinic with `permissions`; the member accepts. */
async function share(user: TestAccount, permissions: Record<string, object>) {
  const sent = await as(user.token, `/confirm/send/invite/${user.userid}/clinic`, { json: { shareCode, permissions } });
  expect(sent.status).toBe(200);
  const accepted = await as(member.token, `/v1/clinics/${clinicId}/invites/patients/${sent.body.key}`, {
    method: 'PUT',
    json: { fullName: 'Shared Patient', birthDate: '2000-01-01' },
  });
  expect(accepted.status).toBe(200);
}

beforeAll(async () => {
  app = await startTestApp();
  server = await serverToken(app);
  [admin, member, prescriber, outsider] = await Promise.all(
    ['admin', 'member', 'prescriber', 'outsider'].map((name) => signUp(app, name)),
  );
  const clinic = await as(admin.token, '/v1/clinics', {
    json: { name: 'Access Clinic', preferredBgUnits: 'mmol/L', phoneNumbers: [{ number: '555-0102' }] },
  });
  ({ id: clinicId, shareCode } = clinic.body);
  for (const [account, roles] of [
    [member, ['CLINIC_MEMBER']],
    [prescriber, ['PRESCRIBER']],
  ] as const) {
    const added = await as(server, `/v1/clinics/${clinicId}/clinicians`, {
      json: { id: account.userid, email: account.email, roles },
    });
    expect(added.status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe('clinic access to a patient’s data', () => {
  it('every clinician reads a patient’s device logs through the clinic, until the patient revokes the share', async () => {
    const patient = await signUp(app, 'patient');
    const log = (await uploadLog(app, patient.userid, patient.token, WINDOW)).body;
    expect((await logsOf(patient.userid, member.token)).status).toBe(403);

    await share(patient, { view: {} });
    for (const clinician of [admin, member, prescriber]) {
      const listed = await logsOf(patient.userid, clinician.token);
      expect(listed.status).toBe(200);
      expect(listed.body.map((entry: { id: string }) => entry.id)).toEqual([log.id]);
      expect((await as(clinician.token, `/v1/device_logs/${log.id}`)).status).toBe(200);
      expect((await as(clinician.token, `/v1/device_logs/${log.id}/content`)).status).toBe(200);
    }
    expect((await logsOf(patient.userid, outsider.token)).status).toBe(403);
    // `view` alone does not let the clinic upload.
    expect((await uploadLog(app, patient.userid, member.token, WINDOW)).status).toBe(403);
    // Tidepool's permission check (gatekeeper's userInGroup) merges what reaches a clinician through its clinics.
    expect((await as(patient.token, `/access/${patient.userid}/${member.userid}`)).body).toEqual({ view: {} });

    const revoked = await as(patient.token, `/v1/clinics/${clinicId}/patients/${patient.userid}/permissions`, {
      method: 'PUT',
      json: {},
    });
    expect(revoked.status).toBe(200);
    expect((await logsOf(patient.userid, member.token)).status).toBe(403);
    expect((await as(member.token, `/v1/device_logs/${log.id}`)).status).toBe(403);
    expect((await as(patient.token, `/access/${patient.userid}/${member.userid}`)).status).toBe(404);
    expect((await as(member.token, `/v1/clinics/${clinicId}/patients/${patient.userid}`)).status).toBe(404);
  });

  it('`upload` lets clinicians upload for the patient, as a direct grant would', async () => {
    const patient = await signUp(app, 'uploader');
    await share(patient, { view: {}, upload: {} });
    expect((await uploadLog(app, patient.userid, prescriber.token, WINDOW)).status).toBe(201);
    const dropped = await as(patient.token, `/v1/clinics/${clinicId}/patients/${patient.userid}/permissions/upload`, {
      method: 'DELETE',
    });
    expect(dropped.status).toBe(204);
    expect((await uploadLog(app, patient.userid, prescriber.token, WINDOW)).status).toBe(403);
    expect((await logsOf(patient.userid, prescriber.token)).status).toBe(200);
  });

  it('a patient removed from the clinic takes the clinic’s access with it at once', async () => {
    const patient = await signUp(app, 'removed');
    await uploadLog(app, patient.userid, patient.token, WINDOW);
    await share(patient, { view: {} });
    expect((await logsOf(patient.userid, member.token)).status).toBe(200);
    expect(
      (await as(admin.token, `/v1/clinics/${clinicId}/patients/${patient.userid}`, { method: 'DELETE' })).status,
    ).toBe(204);
    expect((await logsOf(patient.userid, member.token)).status).toBe(403);
  });

  it('a clinician who leaves the clinic loses the access, and one who joins gains it', async () => {
    const patient = await signUp(app, 'steady');
    await uploadLog(app, patient.userid, patient.token, WINDOW);
    await share(patient, { view: {} });
    const newcomer = await signUp(app, 'newcomer');
    expect((await logsOf(patient.userid, newcomer.token)).status).toBe(403);
    await as(server, `/v1/clinics/${clinicId}/clinicians`, {
      json: { id: newcomer.userid, email: newcomer.email, roles: ['CLINIC_MEMBER'] },
    });
    expect((await logsOf(patient.userid, newcomer.token)).status).toBe(200);
    expect(
      (await as(admin.token, `/v1/clinics/${clinicId}/clinicians/${newcomer.userid}`, { method: 'DELETE' })).status,
    ).toBeLessThan(300);
    expect((await logsOf(patient.userid, newcomer.token)).status).toBe(403);
  });

  it('a patient the clinic created is the clinic’s to manage: its clinicians upload and read as custodians', async () => {
    const created = await as(member.token, `/v1/clinics/${clinicId}/patients`, {
      json: { fullName: 'Custodial Child', birthDate: '2015-05-05' },
    });
    const patientId = created.body.id;
    expect((await uploadLog(app, patientId, prescriber.token, WINDOW)).status).toBe(201);
    expect((await logsOf(patientId, admin.token)).body).toHaveLength(1);
    expect((await as(member.token, `/access/${patientId}/${member.userid}`)).body).toEqual({
      custodian: {},
      view: {},
      upload: {},
      note: {},
    });
    expect((await uploadLog(app, patientId, outsider.token, WINDOW)).status).toBe(403);
    expect((await as(member.token, `/v1/patients/${patientId}/clinics`)).body).toHaveLength(1);
  });
});
