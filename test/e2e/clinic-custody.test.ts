import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, uniqueEmail } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { clinicWithStaff } from '../support/clinics';
import { call, graphql } from '../support/http';

/**
 * A clinic's custodian on the patients it created reaches every clinician (as in Tidepool), but
 * acts on the patient's account itself (granting, its login, deleting it) are for the clinic's
 * admins, and what was granted through the clinic ends when the clinic no longer backs it.
 */
let app: TestApp;
let server: string;

beforeAll(async () => {
  app = await startTestApp();
  server = await serverToken(app);
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

const as = (token: string, path: string, init: Parameters<typeof call>[2] = {}) =>
  call(app.url, path, { token, ...init });
const grant = (token: string, patientId: string, granteeId: string, permissions: Record<string, object>) =>
  as(token, `/access/${patientId}/${granteeId}`, { json: permissions });
const heldBy = async (patientId: string, granteeId: string) => {
  const reply = await as(server, `/access/${patientId}/${granteeId}`);
  return reply.status === 404 ? null : reply.body;
};
const gql = async (token: string, query: string, input: Record<string, unknown>) =>
  (await graphql(app.url, query, { input }, token)).body;
const SET_PERMISSIONS = 'mutation ($input: SetPermissionsInput!) { setPermissions(input: $input) { permissions } }';
const DELETE_USER = 'mutation ($input: DeleteUserInput!) { deleteUser(input: $input) { deletedUserId } }';
const UPDATE_USER = 'mutation ($input: UpdateUserInput!) { updateUser(input: $input) { user { userId } } }';
const REMOVE_CLINICIAN = 'mutation ($input: RemoveClinicianInput!) { removeClinician(input: $input) { userId } }';
const codeOf = (body: { errors?: { extensions: { code: string } }[] }) => body.errors?.[0]?.extensions.code;

/** A staffed clinic and a patient account it created (the clinic holds custodian on it). */
async function clinicPatient() {
  const staff = await clinicWithStaff(app, server);
  const created = await as(staff.member.token, `/v1/clinics/${staff.clinicId}/patients`, {
    json: { fullName: 'Custodial Child', birthDate: '2015-05-05', email: uniqueEmail('child') },
  });
  expect(created.status).toBe(200);
  return { ...staff, patientId: created.body.id as string };
}

describe('granting through a clinic’s custodian', () => {
  it('a member or a prescriber cannot grant itself or anyone custodian (REST and GraphQL); an admin can', async () => {
    const { admin, member, prescriber, outsider, patientId } = await clinicPatient();
    for (const clinician of [member, prescriber]) {
      for (const grantee of [clinician, outsider]) {
        expect((await grant(clinician.token, patientId, grantee.userid, { custodian: {} })).status).toBe(403);
        const viaGraphql = await gql(clinician.token, SET_PERMISSIONS, {
          sharerId: patientId,
          userId: grantee.userid,
          permissions: ['CUSTODIAN'],
        });
        expect(codeOf(viaGraphql)).toBe('FORBIDDEN');
        expect(await heldBy(patientId, grantee.userid)).toEqual(clinician === grantee ? expect.anything() : null);
      }
    }
    // What the member holds is still only what the clinic grants it.
    expect(await heldBy(patientId, member.userid)).toEqual({ custodian: {}, view: {}, upload: {}, note: {} });
    expect((await grant(admin.token, patientId, outsider.userid, { view: {} })).status).toBe(200);
    const viaGraphql = await gql(admin.token, SET_PERMISSIONS, {
      sharerId: patientId,
      userId: outsider.userid,
      permissions: ['VIEW', 'NOTE'],
    });
    expect(viaGraphql.errors).toBeUndefined();
    expect(await heldBy(patientId, outsider.userid)).toEqual({ view: {}, note: {} });
  });

  it('the grant an admin makes through the clinic, and every use of it, is in the access log with the clinic', async () => {
    const { clinicId, admin, outsider, patientId } = await clinicPatient();
    expect((await grant(admin.token, patientId, outsider.userid, { view: {} })).status).toBe(200);
    const window = 'startAtTime=2024-03-01T00:00:00Z&endAtTime=2024-03-02T00:00:00Z';
    expect((await as(outsider.token, `/v1/users/${patientId}/device_logs?${window}`)).status).toBe(200);
    const log = await as(server, `/v1/users/${patientId}/access_log`);
    expect(log.status).toBe(200);
    expect(log.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          accessorUserId: admin.userid,
          operation: 'POST /access/:sharerId/:userId',
          outcome: 'allowed',
          clinicId,
        }),
        expect.objectContaining({
          accessorUserId: outsider.userid,
          operation: 'GET /v1/users/:userId/device_logs',
          outcome: 'allowed',
          clinicId,
        }),
      ]),
    );
  });

  it('what the clinic’s access granted ends when its holder leaves the clinic', async () => {
    const { clinicId, admin, member, patientId } = await clinicPatient();
    // An admin grants itself custodian of its own, then is made to leave the clinic.
    const second = await signUp(app, 'second-admin');
    expect(
      (
        await as(server, `/v1/clinics/${clinicId}/clinicians`, {
          json: { id: second.userid, email: second.email, roles: ['CLINIC_ADMIN'] },
        })
      ).status,
    ).toBe(200);
    expect((await grant(second.token, patientId, second.userid, { custodian: {}, view: {} })).status).toBe(200);
    expect((await grant(admin.token, patientId, member.userid, { custodian: {} })).status).toBe(200);
    expect(
      (await as(admin.token, `/v1/clinics/${clinicId}/clinicians/${second.userid}`, { method: 'DELETE' })).status,
    ).toBeLessThan(300);
    expect(await heldBy(patientId, second.userid)).toBeNull();
    expect((await as(second.token, `/v1/users/${patientId}`)).status).toBe(403);
    // The member's direct grant goes with it when it leaves (here over GraphQL).
    const left = await gql(member.token, REMOVE_CLINICIAN, { clinicId, userId: member.userid });
    expect(left.errors).toBeUndefined();
    expect(await heldBy(patientId, member.userid)).toBeNull();
  });

  it('over GraphQL too: the grant is logged with the clinic, and ends when its maker leaves', async () => {
    const { clinicId, admin, outsider, patientId } = await clinicPatient();
    const second = await signUp(app, 'second-admin');
    const added = await as(server, `/v1/clinics/${clinicId}/clinicians`, {
      json: { id: second.userid, email: second.email, roles: ['CLINIC_ADMIN'] },
    });
    expect(added.status).toBe(200);
    const granted = await gql(second.token, SET_PERMISSIONS, {
      sharerId: patientId,
      userId: outsider.userid,
      permissions: ['VIEW'],
    });
    expect(granted.errors).toBeUndefined();
    const log = await graphql(
      app.url,
      'query ($id: ID!) { user(id: $id) { accessLog { nodes { accessorUserId operation outcome clinicId } } } }',
      { id: patientId },
      server,
    );
    expect(log.body.data.user.accessLog.nodes).toEqual(
      expect.arrayContaining([
        { accessorUserId: second.userid, operation: 'setPermissions', outcome: 'ALLOWED', clinicId },
      ]),
    );
    const removed = await gql(admin.token, REMOVE_CLINICIAN, { clinicId, userId: second.userid });
    expect(removed.errors).toBeUndefined();
    expect(await heldBy(patientId, outsider.userid)).toBeNull();
  });
});

describe('the patient’s account itself', () => {
  it('a member or a prescriber cannot delete it (REST and GraphQL), as the clinic refuses removing the patient', async () => {
    const { clinicId, member, prescriber, patientId } = await clinicPatient();
    expect((await as(member.token, `/v1/clinics/${clinicId}/patients/${patientId}`, { method: 'DELETE' })).status).toBe(
      403,
    );
    for (const clinician of [member, prescriber]) {
      expect((await as(clinician.token, `/v1/users/${patientId}`, { method: 'DELETE' })).status).toBe(401);
      expect(codeOf(await gql(clinician.token, DELETE_USER, { userId: patientId }))).toBe('FORBIDDEN');
    }
    expect((await as(member.token, `/v1/users/${patientId}`)).status).toBe(200);
  });

  it('an admin of the clinic deletes it', async () => {
    const { admin, patientId } = await clinicPatient();
    const deleted = await gql(admin.token, DELETE_USER, { userId: patientId });
    expect(deleted.errors).toBeUndefined();
    expect((await as(server, `/v1/users/${patientId}`)).status).toBe(404);
    const other = await clinicPatient();
    expect((await as(other.admin.token, `/v1/users/${other.patientId}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('a member or a prescriber cannot change its login (REST and GraphQL); an admin can', async () => {
    const { admin, member, prescriber, patientId } = await clinicPatient();
    for (const clinician of [member, prescriber]) {
      const taken = uniqueEmail('taken');
      const rest = await as(clinician.token, `/auth/user/${patientId}`, {
        method: 'PUT',
        json: { updates: { username: taken, emails: [taken] } },
      });
      expect(rest.status).toBe(403);
      const viaGraphql = await gql(clinician.token, UPDATE_USER, {
        userId: patientId,
        username: taken,
        emails: [taken],
      });
      expect(codeOf(viaGraphql)).toBe('FORBIDDEN');
    }
    const renamed = uniqueEmail('renamed');
    const changed = await gql(admin.token, UPDATE_USER, { userId: patientId, username: renamed, emails: [renamed] });
    expect(changed.errors).toBeUndefined();
    expect((await as(server, `/v1/users/${patientId}`)).body.username).toBe(renamed);
  });
});
