import { expect } from '@jest/globals';
import { signUp, type TestAccount } from './accounts';
import type { TestApp } from './app';
import { call } from './http';

/** The smallest clinic body Tidepool accepts. */
export const MINIMAL_CLINIC = { name: 'Clinic', preferredBgUnits: 'mg/dL' };

/** Creates a clinic through the legacy REST API; `owner` becomes its CLINIC_ADMIN. */
export async function newClinic(
  app: TestApp,
  owner: TestAccount,
  body: Record<string, unknown> = MINIMAL_CLINIC,
): Promise<Record<string, unknown> & { id: string; shareCode: string; createdTime: string }> {
  const reply = await call(app.url, '/v1/clinics', { token: owner.token, json: body });
  expect(reply.status).toBe(200);
  return reply.body;
}

/** Makes `account` a clinician of the clinic with `roles`, through the internal (server) endpoint. */
export async function addClinician(
  app: TestApp,
  server: string,
  clinicId: string,
  account: TestAccount,
  roles: string[],
) {
  const reply = await call(app.url, `/v1/clinics/${clinicId}/clinicians`, {
    token: server,
    json: { id: account.userid, email: account.email, roles },
  });
  expect(reply.status).toBe(200);
}

/**
 * `patient` asks to join the clinic by its share code (granting it view) and the clinic's
 * `admin` accepts, naming the patient `fullName`: how a patient's data reaches a clinic.
 */
export async function joinClinic(
  app: Pick<TestApp, 'url'>,
  clinic: { id: string; shareCode: string },
  admin: TestAccount,
  patient: TestAccount,
  fullName = 'Clinic Patient',
): Promise<void> {
  const sent = await call(app.url, `/confirm/send/invite/${patient.userid}/clinic`, {
    token: patient.token,
    json: { shareCode: clinic.shareCode, permissions: { view: {} } },
  });
  expect(sent.status).toBe(200);
  const accepted = await call(app.url, `/v1/clinics/${clinic.id}/invites/patients/${sent.body.key}`, {
    method: 'PUT',
    token: admin.token,
    json: { fullName, birthDate: '1990-01-01' },
  });
  expect(accepted.status).toBe(200);
}

/** A clinic with an admin (its creator), a CLINIC_MEMBER, a PRESCRIBER-only clinician, and an outsider. */
export async function clinicWithStaff(app: TestApp, server: string, body: Record<string, unknown> = MINIMAL_CLINIC) {
  const [admin, member, prescriber, outsider] = await Promise.all(
    ['admin', 'member', 'prescriber', 'outsider'].map((name) => signUp(app, name)),
  );
  const clinic = await newClinic(app, admin, body);
  await addClinician(app, server, clinic.id, member, ['CLINIC_MEMBER']);
  await addClinician(app, server, clinic.id, prescriber, ['PRESCRIBER']);
  return { clinic, clinicId: clinic.id, admin, member, prescriber, outsider };
}
