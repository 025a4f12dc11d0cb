import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { markVerified, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import type { TestApp } from '../support/app';
import { clinicWithStaff } from '../support/clinics';
import { call, graphql } from '../support/http';
import { invitationKeyIn, nextMailAbout, startMailingApp, type MailingApp } from '../support/invitations';
import type { TestSmtpServer } from '../support/smtp';

/**
 * A clinician invitation is answered by an account that has verified the invited address, or
 * with the key from the invitation's mail. An account that types the address in (the clinic
 * takeover of issue 27) answers nothing; one that added it after the invitation does not even
 * see it. Over REST and GraphQL alike, with a real SMTP server carrying the keys.
 */
let mailing: MailingApp;
let smtp: TestSmtpServer;
let app: TestApp;
let server: string;

beforeAll(async () => {
  mailing = await startMailingApp();
  ({ app, smtp, server } = mailing);
}, 120_000);
afterAll(() => mailing?.stop());

/** The key of the next clinic invitation mailed to `to`. */
const keyMailedTo = async (to: string) => invitationKeyIn(await nextMailAbout(smtp, to, /invited to join/));

const invitesOf = (account: TestAccount) =>
  call(app.url, `/v1/clinicians/${account.userid}/invites`, { token: account.token });
const answer = (account: TestAccount, inviteId: string, method: 'PUT' | 'DELETE') =>
  call(app.url, `/v1/clinicians/${account.userid}/invites/${inviteId}`, { method, token: account.token });
const INVITES = 'query ($id: ID!) { clinicianInvites(userId: $id) { totalCount nodes { inviteId } } }';
const ACCEPT =
  'mutation ($input: AnswerClinicianInviteInput!) { acceptClinicianInvite(input: $input) { clinician { userId roles } } }';
const DECLINE = 'mutation ($input: AnswerClinicianInviteInput!) { declineClinicianInvite(input: $input) { inviteId } }';

/** A clinic whose admin invites `email` as CLINIC_ADMIN; the invitation's id. */
async function adminInvite(email: string) {
  const staff = await clinicWithStaff(app, server);
  const sent = await call(app.url, `/v1/clinics/${staff.clinicId}/invites/clinicians`, {
    token: staff.admin.token,
    json: { email, roles: ['CLINIC_ADMIN'] },
  });
  expect(sent.status).toBe(200);
  return { ...staff, inviteId: sent.body.inviteId as string };
}

/** The account adds `email` to its emails, over REST. */
async function addEmailRest(account: TestAccount, email: string) {
  const added = await call(app.url, `/auth/user/${account.userid}`, {
    method: 'PUT',
    token: account.token,
    json: { updates: { emails: [account.email, email], currentPassword: account.password } },
  });
  expect(added.status).toBe(200);
}

/** The account adds `email` to its emails, over GraphQL. */
async function addEmailGraphql(account: TestAccount, email: string) {
  const added = await graphql(
    app.url,
    'mutation ($e: [String!], $p: String) { updateMe(input: { emails: $e, currentPassword: $p }) { user { emails } } }',
    { e: [account.email, email], p: account.password },
    account.token,
  );
  expect(added.body.errors).toBeUndefined();
}

const isClinician = async (clinicId: string, account: TestAccount) =>
  (await call(app.url, `/v1/clinics/${clinicId}/clinicians/${account.userid}`, { token: server })).status === 200;

describe('an address added after the invitation', () => {
  it('claims nothing over REST: the invitation is not listed, not accepted, not declined', async () => {
    const invited = uniqueEmail('new.doctor');
    const { clinicId, admin, inviteId } = await adminInvite(invited);
    const attacker = await signUp(app, 'attacker');
    await addEmailRest(attacker, invited);

    expect((await invitesOf(attacker)).body).toEqual([]);
    expect((await answer(attacker, inviteId, 'PUT')).status).toBe(404);
    expect((await answer(attacker, inviteId, 'DELETE')).status).toBe(404);
    expect(await isClinician(clinicId, attacker)).toBe(false);
    // The invitation is still there for its invitee, and deleting the account does not take it.
    const deleted = await call(app.url, `/auth/user/${attacker.userid}`, {
      method: 'DELETE',
      token: attacker.token,
      json: { password: attacker.password },
    });
    expect(deleted.status).toBe(204);
    const kept = await call(app.url, `/v1/clinics/${clinicId}/invites/clinicians/${inviteId}/clinician`, {
      token: admin.token,
    });
    expect(kept.status).toBe(200);
  });

  it('claims nothing over GraphQL either', async () => {
    const invited = uniqueEmail('new.doctor');
    const { clinicId, inviteId } = await adminInvite(invited);
    const attacker = await signUp(app, 'attacker');
    await addEmailGraphql(attacker, invited);

    const listed = await graphql(app.url, INVITES, { id: attacker.userid }, attacker.token);
    expect(listed.body.data.clinicianInvites).toEqual({ totalCount: 0, nodes: [] });
    for (const mutation of [ACCEPT, DECLINE]) {
      const refused = await graphql(
        app.url,
        mutation,
        { input: { userId: attacker.userid, inviteId } },
        attacker.token,
      );
      expect(refused.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
    expect(await isClinician(clinicId, attacker)).toBe(false);
  });

  it('an account that signs up with the address after the invitation claims nothing either', async () => {
    const invited = uniqueEmail('new.doctor');
    const { inviteId } = await adminInvite(invited);
    const password = 'late-comer-password';
    const created = await call(app.url, '/auth/user', { json: { username: invited, emails: [invited], password } });
    expect(created.status).toBe(201);
    const lateComer = {
      userid: created.body.userid,
      email: invited,
      password,
      token: created.headers.get('x-tidepool-session-token')!,
    };
    expect((await invitesOf(lateComer)).body).toEqual([]);
    expect((await answer(lateComer, inviteId, 'PUT')).status).toBe(404);
  });
});

describe('an address held before the invitation', () => {
  it('unverified, it lists the invitation but answers it only with the key from the mail', async () => {
    const invitee = await signUp(app, 'invitee');
    const { clinicId, inviteId } = await adminInvite(invitee.email);
    expect((await invitesOf(invitee)).body).toEqual([
      expect.objectContaining({ key: inviteId, restrictions: { canAccept: false } }),
    ]);
    const keyless = await answer(invitee, inviteId, 'PUT');
    expect(keyless.status).toBe(403);
    expect(keyless.body.reason).toMatch(/Verify .* or accept with the key/);
    expect(await isClinician(clinicId, invitee)).toBe(false);

    const key = await keyMailedTo(invitee.email);
    const accepted = await call(app.url, `/v1/clinicians/${invitee.userid}/invites/${inviteId}`, {
      method: 'PUT',
      token: invitee.token,
      json: { key },
    });
    expect(accepted.status).toBe(200);
    expect(await isClinician(clinicId, invitee)).toBe(true);
  });

  it('a squatter that typed the address in before the invitation was sent cannot accept it', async () => {
    const squatter = await signUp(app, 'squatter');
    const invited = uniqueEmail('new.doctor');
    await addEmailGraphql(squatter, invited);
    const { clinicId, inviteId } = await adminInvite(invited);
    const refused = await graphql(app.url, ACCEPT, { input: { userId: squatter.userid, inviteId } }, squatter.token);
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const declined = await graphql(app.url, DECLINE, { input: { userId: squatter.userid, inviteId } }, squatter.token);
    expect(declined.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await isClinician(clinicId, squatter)).toBe(false);
  });

  it('verified, it accepts without a key, over GraphQL', async () => {
    const invitee = await markVerified(app, server, await signUp(app, 'invitee'));
    const { clinicId, inviteId } = await adminInvite(invitee.email);
    const listed = await graphql(app.url, INVITES, { id: invitee.userid }, invitee.token);
    expect(listed.body.data.clinicianInvites).toEqual({ totalCount: 1, nodes: [{ inviteId }] });
    expect((await invitesOf(invitee)).body).toEqual([
      expect.objectContaining({ key: inviteId, restrictions: { canAccept: true } }),
    ]);
    const accepted = await graphql(app.url, ACCEPT, { input: { userId: invitee.userid, inviteId } }, invitee.token);
    expect(accepted.body.errors).toBeUndefined();
    expect(accepted.body.data.acceptClinicianInvite.clinician).toEqual({
      userId: invitee.userid,
      roles: ['CLINIC_ADMIN'],
    });
    expect(await isClinician(clinicId, invitee)).toBe(true);
  });

  it('a verified account that makes the invited address its username is no longer verified', async () => {
    const attacker = await markVerified(app, server, await signUp(app, 'attacker'));
    const invited = uniqueEmail('new.doctor');
    const renamed = await call(app.url, `/auth/user/${attacker.userid}`, {
      method: 'PUT',
      token: attacker.token,
      json: { updates: { username: invited, emails: [invited], currentPassword: attacker.password } },
    });
    expect(renamed.status).toBe(200);
    const { clinicId, inviteId } = await adminInvite(invited);
    expect((await answer(attacker, inviteId, 'PUT')).status).toBe(403);
    expect(await isClinician(clinicId, attacker)).toBe(false);
  });
});

describe('the invitation’s mail', () => {
  const acceptWith = (account: TestAccount, inviteId: string, key: string) =>
    call(app.url, `/v1/clinicians/${account.userid}/invites/${inviteId}`, {
      method: 'PUT',
      token: account.token,
      json: { key },
    });

  it('is sent on invite and on resend; only the newest key works, once, for whoever reads the mail', async () => {
    const invited = uniqueEmail('new.doctor');
    const { clinicId, admin, inviteId } = await adminInvite(invited);
    const first = await keyMailedTo(invited);
    const resent = await call(app.url, `/v1/clinics/${clinicId}/invites/clinicians/${inviteId}`, {
      method: 'PATCH',
      token: admin.token,
    });
    expect(resent.status).toBe(200);
    const second = await keyMailedTo(invited);
    expect(second).not.toBe(first);

    // The person reading that mailbox accepts from an account with another address.
    const reader = await signUp(app, 'reader');
    expect((await acceptWith(reader, inviteId, first)).status).toBe(409);
    expect((await acceptWith(reader, inviteId, 'A'.repeat(32))).status).toBe(404);
    expect((await acceptWith(reader, inviteId, second)).status).toBe(200);
    expect(await isClinician(clinicId, reader)).toBe(true);
    const other = await signUp(app, 'other');
    expect((await acceptWith(other, inviteId, second)).status).toBe(404);
  });

  it('an expired key opens nothing; a resend mails one that works', async () => {
    const invited = uniqueEmail('new.doctor');
    const { clinicId, admin, inviteId } = await adminInvite(invited);
    const key = await keyMailedTo(invited);
    await app.database.query(
      `update confirmations set expires_at = now() - interval '1 minute' where type = 'clinician_invitation' and email = $1`,
      [invited],
    );
    const reader = await signUp(app, 'reader');
    expect((await acceptWith(reader, inviteId, key)).status).toBe(404);
    await call(app.url, `/v1/clinics/${clinicId}/invites/clinicians/${inviteId}`, {
      method: 'PATCH',
      token: admin.token,
    });
    expect((await acceptWith(reader, inviteId, await keyMailedTo(invited))).status).toBe(200);
  });

  it('a revoked invitation’s key opens nothing', async () => {
    const invited = uniqueEmail('new.doctor');
    const { admin, clinicId, inviteId } = await adminInvite(invited);
    const key = await keyMailedTo(invited);
    const revoked = await call(app.url, `/v1/clinics/${clinicId}/invites/clinicians/${inviteId}`, {
      method: 'DELETE',
      token: admin.token,
    });
    expect(revoked.status).toBe(200);
    const reader = await signUp(app, 'reader');
    expect((await acceptWith(reader, inviteId, key)).status).toBe(404);
  });
});
