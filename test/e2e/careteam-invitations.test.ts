import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { markVerified, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import type { TestApp } from '../support/app';
import { call, graphql } from '../support/http';
import { expectMatchesTidepoolModel } from '../support/openapi';
import { invitationKeyIn, nextMailAbout, startMailingApp, type MailingApp } from '../support/invitations';
import type { TestSmtpServer } from '../support/smtp';

/**
 * Care-team invitations by email (hydrophone's share-by-email), through the real service and a
 * real SMTP server: the key arrives in the mail, works once, expires, opens nothing of another
 * flow; the invitee dismisses and the sharer cancels. Answers are Tidepool's confirmation model.
 */
const CONFIRMATION = 'confirm/models/confirmation.v1.yaml';
let mailing: MailingApp;
let smtp: TestSmtpServer;
let app: TestApp;
let server: string;

beforeAll(async () => {
  mailing = await startMailingApp();
  ({ app, smtp, server } = mailing);
}, 120_000);
afterAll(() => mailing?.stop());

/** The next invitation mail to `to`. */
const invitationMailTo = (to: string) => nextMailAbout(smtp, to, /invited/i);

const invite = (sharer: TestAccount, email: string, permissions: Record<string, object> = { view: {}, note: {} }) =>
  call(app.url, `/confirm/send/invite/${sharer.userid}`, { token: sharer.token, json: { email, permissions } });
const accept = (invitee: TestAccount, sharer: TestAccount, key: string) =>
  call(app.url, `/confirm/accept/invite/${invitee.userid}/${sharer.userid}`, {
    method: 'PUT',
    token: invitee.token,
    json: { key },
  });
const permissionsOf = async (sharer: TestAccount, grantee: TestAccount) =>
  (await call(app.url, `/access/${sharer.userid}/${grantee.userid}`, { token: sharer.token })).body;

describe('an invitation by email', () => {
  it('is mailed with its key; the key accepts once and grants exactly the permissions offered', async () => {
    const [sharer, invitee] = await Promise.all([signUp(app, 'sharer'), signUp(app, 'invitee')]);
    const sent = await invite(sharer, invitee.email.toUpperCase());
    expect(sent.status).toBe(200);
    await expectMatchesTidepoolModel(sent.body, CONFIRMATION);
    expect(sent.body).toMatchObject({
      type: 'careteam_invitation',
      status: 'pending',
      email: invitee.email,
      creatorId: sharer.userid,
      context: JSON.stringify({ view: {}, note: {} }),
    });

    const mail = await invitationMailTo(invitee.email);
    expect(mail.from?.text).toContain('no-reply@islet.test');
    const key = invitationKeyIn(mail);
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(key).not.toBe(sent.body.key);
    const link = /(https?:\/\/\S+)/.exec(mail.text ?? '')![1]!;
    expect(mail.html).toContain(key);
    expect(link.startsWith(`${app.url}/confirm/invite?`)).toBe(true);
    expect(new URL(link).searchParams.get('key')).toBe(key);

    const listed = await call(app.url, `/confirm/invite/${sharer.userid}`, { token: sharer.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([expect.objectContaining({ key: sent.body.key, status: 'pending' })]);
    for (const each of listed.body) await expectMatchesTidepoolModel(each, CONFIRMATION);

    const accepted = await accept(invitee, sharer, key);
    expect(accepted.status).toBe(200);
    await expectMatchesTidepoolModel(accepted.body, CONFIRMATION);
    expect(accepted.body.status).toBe('completed');
    expect(await permissionsOf(sharer, invitee)).toEqual({ view: {}, note: {} });

    // Used once: a second use is refused and changes nothing.
    expect((await accept(invitee, sharer, key)).status).toBe(409);
    expect((await call(app.url, `/confirm/invite/${sharer.userid}`, { token: sharer.token })).body).toEqual([]);
    // Already in the care team: inviting again is a conflict, and no mail goes out.
    expect((await invite(sharer, invitee.email)).status).toBe(409);
  });

  it('an expired key opens nothing; the sharer invites again and the new key works', async () => {
    const [sharer, invitee] = await Promise.all([signUp(app, 'sharer'), signUp(app, 'invitee')]);
    const first = await invite(sharer, invitee.email, { view: {} });
    expect(first.status).toBe(200);
    const oldKey = invitationKeyIn(await invitationMailTo(invitee.email));
    // A pending invitation is not sent twice.
    expect((await invite(sharer, invitee.email, { view: {} })).status).toBe(409);
    await app.database.query(`update confirmations set expires_at = now() - interval '1 minute' where id = $1`, [
      first.body.key,
    ]);
    expect((await accept(invitee, sharer, oldKey)).status).toBe(404);
    expect((await call(app.url, `/confirm/invite/${sharer.userid}`, { token: sharer.token })).body).toEqual([]);

    expect((await invite(sharer, invitee.email, { upload: {} })).status).toBe(200);
    const newKey = invitationKeyIn(await invitationMailTo(invitee.email));
    expect((await accept(invitee, sharer, oldKey)).status).toBe(409);
    expect((await accept(invitee, sharer, newKey)).status).toBe(200);
    expect(await permissionsOf(sharer, invitee)).toEqual({ upload: {} });
  });

  it('a key opens only its own flow and its own sharer', async () => {
    const [sharer, other, invitee] = await Promise.all([
      signUp(app, 'sharer'),
      signUp(app, 'other'),
      signUp(app, 'invitee'),
    ]);
    expect((await invite(sharer, invitee.email)).status).toBe(200);
    const key = invitationKeyIn(await invitationMailTo(invitee.email));
    // Another sharer's path: no invitation of its matches the key.
    expect((await accept(invitee, other, key)).status).toBe(404);

    // A clinician invitation's key is not a care-team key, nor the other way round.
    const clinic = await call(app.url, '/v1/clinics', {
      token: other.token,
      json: { name: 'Clinic', preferredBgUnits: 'mg/dL' },
    });
    const clinicInvite = await call(app.url, `/v1/clinics/${clinic.body.id}/invites/clinicians`, {
      token: other.token,
      json: { email: invitee.email, roles: ['CLINIC_MEMBER'] },
    });
    expect(clinicInvite.status).toBe(200);
    const clinicKey = invitationKeyIn(await invitationMailTo(invitee.email));
    expect((await accept(invitee, other, clinicKey)).status).toBe(404);
    const wrongFlow = await call(app.url, `/v1/clinicians/${invitee.userid}/invites/${clinicInvite.body.inviteId}`, {
      method: 'PUT',
      token: invitee.token,
      json: { key },
    });
    expect(wrongFlow.status).toBe(404);

    expect((await accept(invitee, sharer, key)).status).toBe(200);
    expect(await permissionsOf(sharer, invitee)).toEqual({ view: {}, note: {} });
  });

  it('the invitee dismisses it: no grant, and the key no longer accepts', async () => {
    const [sharer, invitee] = await Promise.all([signUp(app, 'sharer'), signUp(app, 'invitee')]);
    expect((await invite(sharer, invitee.email)).status).toBe(200);
    const key = invitationKeyIn(await invitationMailTo(invitee.email));
    const dismissed = await call(app.url, `/confirm/dismiss/invite/${invitee.userid}/${sharer.userid}`, {
      method: 'PUT',
      token: invitee.token,
      json: { key },
    });
    expect(dismissed.status).toBe(200);
    await expectMatchesTidepoolModel(dismissed.body, CONFIRMATION);
    expect(dismissed.body.status).toBe('declined');
    expect((await accept(invitee, sharer, key)).status).toBe(409);
    expect((await call(app.url, `/access/${sharer.userid}/${invitee.userid}`, { token: sharer.token })).status).toBe(
      404,
    );
  });

  it('the sharer cancels it: the key no longer accepts, and only the sharer (or a custodian) may', async () => {
    const [sharer, invitee, stranger] = await Promise.all([
      signUp(app, 'sharer'),
      signUp(app, 'invitee'),
      signUp(app, 'stranger'),
    ]);
    expect((await invite(stranger, invitee.email)).status).toBe(200);
    expect(
      (
        await call(app.url, `/confirm/send/invite/${sharer.userid}`, {
          token: stranger.token,
          json: { email: invitee.email, permissions: { view: {} } },
        })
      ).status,
    ).toBe(403);
    expect((await invite(sharer, invitee.email)).status).toBe(200);
    const mails = [await invitationMailTo(invitee.email), await invitationMailTo(invitee.email)];
    const cancelPath = `/confirm/${sharer.userid}/invited/${encodeURIComponent(invitee.email)}`;
    expect((await call(app.url, cancelPath, { method: 'PUT', token: stranger.token })).status).toBe(403);
    const canceled = await call(app.url, cancelPath, { method: 'PUT', token: sharer.token });
    expect(canceled.status).toBe(200);
    await expectMatchesTidepoolModel(canceled.body, CONFIRMATION);
    expect(canceled.body.status).toBe('canceled');
    expect((await call(app.url, cancelPath, { method: 'PUT', token: sharer.token })).status).toBe(404);
    // The stranger's own invitation is untouched by the sharer's cancel.
    const results = await Promise.all(mails.map((mail) => accept(invitee, sharer, invitationKeyIn(mail))));
    expect(results.map((reply) => reply.status).sort()).toEqual([404, 409]);
  });

  it('bad input is a 400 naming the problem', async () => {
    const sharer = await signUp(app, 'sharer');
    const send = (json: unknown) =>
      call(app.url, `/confirm/send/invite/${sharer.userid}`, { token: sharer.token, json });
    expect((await send({ email: 'not-an-address', permissions: { view: {} } })).status).toBe(400);
    expect((await send({ email: uniqueEmail(), permissions: {} })).body.reason).toMatch(/permissions/);
    expect((await send({ email: uniqueEmail(), permissions: { root: {} } })).status).toBe(400);
    expect((await send({ email: sharer.email, permissions: { view: {} } })).status).toBe(400);
  });
});

describe('received invitations and the listed handle', () => {
  it('an account that verified the address lists the invitation and accepts by its handle', async () => {
    const [sharer, invitee] = await Promise.all([signUp(app, 'sharer'), signUp(app, 'invitee')]);
    await markVerified(app, server, invitee);
    const sent = await invite(sharer, invitee.email, { view: {} });
    const received = await call(app.url, `/confirm/invitations/${invitee.userid}`, { token: invitee.token });
    expect(received.status).toBe(200);
    expect(received.body).toEqual([
      expect.objectContaining({ key: sent.body.key, creatorId: sharer.userid, restrictions: { canAccept: true } }),
    ]);
    for (const each of received.body) await expectMatchesTidepoolModel(each, CONFIRMATION);
    expect((await accept(invitee, sharer, sent.body.key)).status).toBe(200);
    expect(await permissionsOf(sharer, invitee)).toEqual({ view: {} });
    expect((await call(app.url, `/confirm/invitations/${sharer.userid}`, { token: invitee.token })).status).toBe(403);
  });

  it('an address typed into another account lists nothing and its handle accepts nothing', async () => {
    const [sharer, squatter] = await Promise.all([signUp(app, 'sharer'), signUp(app, 'squatter')]);
    const address = uniqueEmail('victim');
    const added = await call(app.url, `/auth/user/${squatter.userid}`, {
      method: 'PUT',
      token: squatter.token,
      json: { updates: { emails: [squatter.email, address], currentPassword: squatter.password } },
    });
    expect(added.status).toBe(200);
    const sent = await invite(sharer, address);
    expect(sent.status).toBe(200);
    expect((await call(app.url, `/confirm/invitations/${squatter.userid}`, { token: squatter.token })).body).toEqual(
      [],
    );
    expect((await accept(squatter, sharer, sent.body.key)).status).toBe(404);
    expect((await call(app.url, `/access/${sharer.userid}/${squatter.userid}`, { token: sharer.token })).status).toBe(
      404,
    );
  });
});

describe('over GraphQL', () => {
  it('sends, lists and accepts with the mailed key', async () => {
    const [sharer, invitee] = await Promise.all([signUp(app, 'sharer'), signUp(app, 'invitee')]);
    const fields = 'invitation { id sharerId email permissions status }';
    const sent = await graphql(
      app.url,
      `mutation ($input: SendCareTeamInvitationInput!) { sendCareTeamInvitation(input: $input) { ${fields} } }`,
      { input: { sharerId: sharer.userid, email: invitee.email, permissions: ['VIEW', 'UPLOAD'] } },
      sharer.token,
    );
    expect(sent.body.errors).toBeUndefined();
    const key = invitationKeyIn(await invitationMailTo(invitee.email));
    const listed = await graphql(
      app.url,
      'query ($id: ID!) { sentCareTeamInvitations(sharerId: $id) { id permissions } }',
      { id: sharer.userid },
      sharer.token,
    );
    expect(listed.body.data.sentCareTeamInvitations).toEqual([
      { id: sent.body.data.sendCareTeamInvitation.invitation.id, permissions: ['VIEW', 'UPLOAD'] },
    ]);
    const accepted = await graphql(
      app.url,
      `mutation ($input: AnswerCareTeamInvitationInput!) { acceptCareTeamInvitation(input: $input) { ${fields} } }`,
      { input: { userId: invitee.userid, invitedBy: sharer.userid, key } },
      invitee.token,
    );
    expect(accepted.body.errors).toBeUndefined();
    expect(accepted.body.data.acceptCareTeamInvitation.invitation.status).toBe('COMPLETED');
    expect(await permissionsOf(sharer, invitee)).toEqual({ view: {}, upload: {} });
  });
});
