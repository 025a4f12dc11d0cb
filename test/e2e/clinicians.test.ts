import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { markVerified, serverToken, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call, graphql } from '../support/http';
import { clinicWithStaff as staffedClinic, MINIMAL_CLINIC } from '../support/clinics';
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

const CLINIC = MINIMAL_CLINIC;
const addClinician = (clinicId: string, body: Record<string, unknown>, token = server) =>
  call(app.url, `/v1/clinics/${clinicId}/clinicians`, { token, json: body });
const clinicWithStaff = () => staffedClinic(app, server);

const clinicianPath = (clinicId: string, userId: string) => `/v1/clinics/${clinicId}/clinicians/${userId}`;
const invitePath = (clinicId: string, inviteId: string) => `/v1/clinics/${clinicId}/invites/clinicians/${inviteId}`;

async function invite(clinicId: string, token: string, email: string, roles = ['CLINIC_MEMBER']) {
  return call(app.url, `/v1/clinics/${clinicId}/invites/clinicians`, { token, json: { email, roles } });
}

describe('listing clinicians', () => {
  it('lists members and admins to the clinic’s members, admins and servers, oldest first', async () => {
    const { clinicId, admin, member, prescriber, outsider } = await clinicWithStaff();
    for (const token of [admin.token, member.token, server]) {
      const reply = await call(app.url, `/v1/clinics/${clinicId}/clinicians`, { token });
      expect(reply.status).toBe(200);
      await expectMatchesOperation(reply, 'clinic.v1.yaml', 'ListClinicians');
      expect(reply.body.map((c: { id: string }) => c.id)).toEqual([admin.userid, member.userid, prescriber.userid]);
    }
    for (const token of [prescriber.token, outsider.token]) {
      expect((await call(app.url, `/v1/clinics/${clinicId}/clinicians`, { token })).status).toBe(403);
    }
    expect((await call(app.url, `/v1/clinics/${clinicId}/clinicians`)).status).toBe(401);
    expect((await call(app.url, '/v1/clinics/0123456789abcdef01234567/clinicians', { token: server })).status).toBe(
      404,
    );
    expect((await call(app.url, '/v1/clinics/nope/clinicians', { token: server })).status).toBe(400);
  });

  it('filters by search, role and email (any case), and pages with offset and limit', async () => {
    const { clinicId, admin, member, prescriber } = await clinicWithStaff();
    await call(app.url, clinicianPath(clinicId, member.userid), {
      method: 'PUT',
      token: admin.token,
      json: { roles: ['CLINIC_MEMBER'], name: 'Dr. Zoë Quincy' },
    });
    const ids = async (query: string) => {
      const reply = await call(app.url, `/v1/clinics/${clinicId}/clinicians?${query}`, { token: admin.token });
      expect({ query, status: reply.status }).toEqual({ query, status: 200 });
      return reply.body.map((c: { id: string }) => c.id);
    };
    expect(await ids('search=quincy')).toEqual([member.userid]);
    expect(await ids(`search=${prescriber.email.split('@')[0].toUpperCase()}`)).toEqual([prescriber.userid]);
    expect(await ids('search=%25')).toEqual([]);
    expect(await ids('role=PRESCRIBER')).toEqual([prescriber.userid]);
    expect(await ids(`email=${admin.email.toUpperCase()}`)).toEqual([admin.userid]);
    expect(await ids('limit=1&offset=1')).toEqual([member.userid]);
    expect(await ids('offset=3')).toEqual([]);
    expect(await ids('unknown=1')).toHaveLength(3);
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['offset=-2', 'offset'],
      ['role=DOCTOR', 'role'],
      ['email=not-an-email', 'email'],
    ]) {
      const reply = await call(app.url, `/v1/clinics/${clinicId}/clinicians?${query}`, { token: admin.token });
      expect({ query, status: reply.status }).toEqual({ query, status: 400 });
      expect(reply.body.reason).toContain(field);
    }
  });
});

describe('managing clinicians', () => {
  it('creates clinicians through the internal endpoint: server tokens only, 409 on a duplicate', async () => {
    const { clinicId, admin, outsider } = await clinicWithStaff();
    const body = { id: outsider.userid, email: outsider.email, name: 'Outsider', roles: ['CLINIC_MEMBER'] };
    expect((await addClinician(clinicId, body, admin.token)).status).toBe(403);
    expect((await addClinician(clinicId, body, outsider.token)).status).toBe(403);
    expect((await call(app.url, `/v1/clinics/${clinicId}/clinicians`, { json: body })).status).toBe(401);
    const created = await addClinician(clinicId, body);
    expect(created.status).toBe(200);
    await expectMatchesOperation(created, 'clinic.v1.yaml', 'CreateClinician');
    expect(created.body).toEqual({
      id: outsider.userid,
      email: outsider.email,
      name: 'Outsider',
      roles: ['CLINIC_MEMBER'],
      createdTime: expect.any(String),
      updatedTime: expect.any(String),
    });
    expect((await addClinician(clinicId, body)).status).toBe(409);
    expect((await addClinician(clinicId, { ...body, id: '0123456789' })).status).toBe(404);
    for (const [change, field] of [
      [{ roles: [] }, 'roles'],
      [{ roles: ['CLINIC_MEMBER', 'CLINIC_MEMBER'] }, 'roles'],
      [{ roles: ['DOCTOR'] }, 'roles'],
      [{ roles: 'CLINIC_MEMBER' }, 'roles'],
      [{ roles: undefined }, 'roles'],
      [{ email: 'nope' }, 'email'],
      [{ email: undefined }, 'email'],
      [{ name: '' }, 'name'],
      [{ id: 'XYZ' }, 'id'],
    ] as const) {
      const reply = await addClinician(clinicId, { ...body, ...change });
      expect({ change, status: reply.status }).toEqual({ change, status: 400 });
      expect(reply.body.reason).toContain(field);
    }
    // Without an account id the internal endpoint invites the email.
    const invited = await addClinician(clinicId, { email: 'Someone.New@Example.org', roles: ['PRESCRIBER'] });
    expect(invited.status).toBe(200);
    expect(invited.body).toMatchObject({
      email: 'someone.new@example.org',
      inviteId: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    expect(invited.body.id).toBeUndefined();
  });

  it('reads one clinician: members, admins, the clinician itself and servers', async () => {
    const { clinicId, admin, member, prescriber, outsider } = await clinicWithStaff();
    for (const token of [admin.token, member.token, prescriber.token, server]) {
      const reply = await call(app.url, clinicianPath(clinicId, prescriber.userid), { token });
      expect(reply.status).toBe(200);
      await expectMatchesOperation(reply, 'clinic.v1.yaml', 'GetClinician');
      expect(reply.body).toMatchObject({ id: prescriber.userid, roles: ['PRESCRIBER'] });
    }
    expect((await call(app.url, clinicianPath(clinicId, member.userid), { token: prescriber.token })).status).toBe(403);
    expect((await call(app.url, clinicianPath(clinicId, member.userid), { token: outsider.token })).status).toBe(403);
    expect((await call(app.url, clinicianPath(clinicId, member.userid))).status).toBe(401);
    expect((await call(app.url, clinicianPath(clinicId, outsider.userid), { token: admin.token })).status).toBe(404);
    const bad = await call(app.url, clinicianPath(clinicId, 'nope'), { token: admin.token });
    expect(bad.status).toBe(400);
    expect(bad.body.reason).toContain('clinicianId');
  });

  it('updates roles: admins and servers; never demotes the last admin', async () => {
    const { clinicId, admin, member, prescriber, outsider } = await clinicWithStaff();
    const put = (userId: string, token: string | undefined, json: unknown) =>
      call(app.url, clinicianPath(clinicId, userId), { method: 'PUT', token, json });
    const roles = { roles: ['CLINIC_MEMBER', 'PRESCRIBER'] };
    for (const account of [member, prescriber, outsider])
      expect((await put(member.userid, account.token, roles)).status).toBe(403);
    expect((await put(member.userid, undefined, roles)).status).toBe(401);
    const updated = await put(prescriber.userid, admin.token, {
      ...roles,
      id: 'ignored',
      email: 'ignored@example.org',
    });
    expect(updated.status).toBe(200);
    await expectMatchesOperation(updated, 'clinic.v1.yaml', 'UpdateClinician');
    expect(updated.body).toMatchObject({ id: prescriber.userid, email: prescriber.email, roles: roles.roles });
    expect((await put(outsider.userid, server, roles)).status).toBe(404);
    expect((await put(member.userid, admin.token, { roles: [] })).status).toBe(400);

    const demoted = await put(admin.userid, admin.token, { roles: ['CLINIC_MEMBER'] });
    expect(demoted.status).toBe(409);
    expect(demoted.body.reason).toMatch(/last CLINIC_ADMIN/);
    expect((await put(admin.userid, server, { roles: ['CLINIC_MEMBER'] })).status).toBe(409);
    // With a second admin, the first may step down.
    expect((await put(member.userid, server, { roles: ['CLINIC_ADMIN'] })).status).toBe(200);
    expect((await put(admin.userid, admin.token, { roles: ['CLINIC_MEMBER'] })).status).toBe(200);
    expect((await put(member.userid, member.token, { roles: ['PRESCRIBER'] })).status).toBe(409);
  });

  it('removes clinicians: admins, servers, or oneself; never the last admin', async () => {
    const { clinicId, admin, member, prescriber, outsider } = await clinicWithStaff();
    const remove = (userId: string, token?: string) =>
      call(app.url, clinicianPath(clinicId, userId), { method: 'DELETE', token });
    expect((await remove(prescriber.userid, member.token)).status).toBe(403);
    expect((await remove(prescriber.userid, outsider.token)).status).toBe(403);
    expect((await remove(prescriber.userid)).status).toBe(401);
    const last = await remove(admin.userid, admin.token);
    expect(last.status).toBe(409);
    expect(last.body.reason).toMatch(/last CLINIC_ADMIN .* cannot be removed/);
    expect((await remove(admin.userid, server)).status).toBe(409);

    const removed = await remove(prescriber.userid, admin.token);
    expect(removed.status).toBe(200);
    await expectMatchesOperation(removed, 'clinic.v1.yaml', 'DeleteClinician');
    expect((await remove(prescriber.userid, admin.token)).status).toBe(404);
    expect((await remove(member.userid, member.token)).status).toBe(200);
    expect((await call(app.url, `/v1/clinics/${clinicId}`, { token: member.token })).status).toBe(403);
    const left = await call(app.url, `/v1/clinics/${clinicId}/clinicians`, { token: admin.token });
    expect(left.body.map((c: { id: string }) => c.id)).toEqual([admin.userid]);
  });
});

describe('invitations', () => {
  it('invites an email, lists it among the clinicians, and the owner of that email accepts', async () => {
    const { clinicId, admin, member, prescriber, outsider } = await clinicWithStaff();
    const invitee = await markVerified(app, server, await signUp(app, 'invitee'));
    for (const account of [member, prescriber, outsider]) {
      expect((await invite(clinicId, account.token, invitee.email)).status).toBe(403);
    }
    expect((await invite(clinicId, '', invitee.email)).status).toBe(401);

    const sent = await invite(clinicId, admin.token, invitee.email.toUpperCase(), ['CLINIC_MEMBER', 'PRESCRIBER']);
    expect(sent.status).toBe(200);
    await expectMatchesOperation(sent, 'clinic.v1.yaml', 'InviteClinician');
    const inviteId = sent.body.inviteId;
    expect(sent.body).toEqual({
      inviteId: expect.stringMatching(/^[0-9a-f]{24}$/),
      email: invitee.email,
      roles: ['CLINIC_MEMBER', 'PRESCRIBER'],
      createdTime: expect.any(String),
      updatedTime: expect.any(String),
    });
    expect((await invite(clinicId, admin.token, invitee.email)).status).toBe(409);
    expect((await invite(clinicId, admin.token, member.email)).status).toBe(409);
    expect((await invite(clinicId, admin.token, 'nope', ['CLINIC_MEMBER'])).status).toBe(400);
    expect((await invite(clinicId, admin.token, uniqueEmail(), [])).status).toBe(400);

    const listed = await call(app.url, `/v1/clinics/${clinicId}/clinicians`, { token: member.token });
    expect(listed.body).toHaveLength(4);
    expect(listed.body[3]).toEqual(sent.body);

    const one = await call(app.url, `${invitePath(clinicId, inviteId)}/clinician`, { token: member.token });
    expect(one.status).toBe(200);
    await expectMatchesOperation(one, 'clinic.v1.yaml', 'GetInvitedClinician');
    expect(one.body).toEqual(sent.body);
    expect(
      (await call(app.url, `${invitePath(clinicId, inviteId)}/clinician`, { token: prescriber.token })).status,
    ).toBe(403);

    const confirmation = await call(app.url, invitePath(clinicId, inviteId), { token: member.token });
    expect(confirmation.status).toBe(200);
    expect(confirmation.body).toMatchObject({ key: inviteId, type: 'clinician_invitation', status: 'pending' });
    const resent = await call(app.url, invitePath(clinicId, inviteId), { method: 'PATCH', token: admin.token });
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({
      key: inviteId,
      type: 'clinician_invitation',
      status: 'pending',
      email: invitee.email,
    });
    expect(Date.parse(resent.body.modified)).toBeGreaterThan(Date.parse(sent.body.updatedTime));
    expect((await call(app.url, invitePath(clinicId, inviteId), { method: 'PATCH', token: member.token })).status).toBe(
      403,
    );

    const mine = await call(app.url, `/v1/clinicians/${invitee.userid}/invites`, { token: invitee.token });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([
      expect.objectContaining({
        key: inviteId,
        creator: { clinicId, clinicName: CLINIC.name },
        roles: sent.body.roles,
      }),
    ]);
    expect((await call(app.url, `/v1/clinicians/${invitee.userid}/invites`, { token: outsider.token })).status).toBe(
      403,
    );
    expect((await call(app.url, `/v1/clinicians/${invitee.userid}/invites`, { token: server })).body).toHaveLength(1);
    expect((await call(app.url, `/v1/clinicians/${outsider.userid}/invites`, { token: outsider.token })).body).toEqual(
      [],
    );

    // Another account cannot take it: for it, the invitation does not exist.
    const stolen = await call(app.url, `/v1/clinicians/${outsider.userid}/invites/${inviteId}`, {
      method: 'PUT',
      token: outsider.token,
    });
    expect(stolen.status).toBe(404);
    expect(
      (
        await call(app.url, `/v1/clinicians/${invitee.userid}/invites/${inviteId}`, {
          method: 'PUT',
          token: outsider.token,
        })
      ).status,
    ).toBe(403);

    const accepted = await call(app.url, `/v1/clinicians/${invitee.userid}/invites/${inviteId}`, {
      method: 'PUT',
      token: invitee.token,
    });
    expect(accepted.status).toBe(200);
    await expectMatchesOperation(accepted, 'clinic.v1.yaml', 'AcceptClinicianInvite');
    expect(accepted.body).toMatchObject({
      id: invitee.userid,
      email: invitee.email,
      roles: ['CLINIC_MEMBER', 'PRESCRIBER'],
    });
    expect((await call(app.url, `/v1/clinics/${clinicId}/clinicians`, { token: invitee.token })).status).toBe(200);
    expect((await call(app.url, `/v1/clinicians/${invitee.userid}/invites`, { token: invitee.token })).body).toEqual(
      [],
    );
    expect(
      (
        await call(app.url, `/v1/clinicians/${invitee.userid}/invites/${inviteId}`, {
          method: 'PUT',
          token: invitee.token,
        })
      ).status,
    ).toBe(404);
  });

  it('lets the invitee decline and the admin revoke', async () => {
    const { clinicId, admin, member } = await clinicWithStaff();
    const invitee = await markVerified(app, server, await signUp(app, 'invitee'));
    const first = (await invite(clinicId, admin.token, invitee.email)).body.inviteId;
    const declined = await call(app.url, `/v1/clinicians/${invitee.userid}/invites/${first}`, {
      method: 'DELETE',
      token: invitee.token,
    });
    expect(declined.status).toBe(200);
    await expectMatchesOperation(declined, 'clinic.v1.yaml', 'DismissClinicianInvite');
    expect((await call(app.url, `${invitePath(clinicId, first)}/clinician`, { token: admin.token })).status).toBe(404);

    const second = (await invite(clinicId, admin.token, invitee.email)).body.inviteId;
    expect((await call(app.url, invitePath(clinicId, second), { method: 'DELETE', token: member.token })).status).toBe(
      403,
    );
    const revoked = await call(app.url, invitePath(clinicId, second), { method: 'DELETE', token: admin.token });
    expect(revoked.status).toBe(200);
    await expectMatchesOperation(revoked, 'clinic.v1.yaml', 'DeleteInvite');
    expect((await call(app.url, invitePath(clinicId, second), { method: 'DELETE', token: admin.token })).status).toBe(
      404,
    );
    expect((await call(app.url, invitePath(clinicId, 'nope'), { method: 'DELETE', token: admin.token })).status).toBe(
      400,
    );
    const accept = await call(app.url, `/v1/clinicians/${invitee.userid}/invites/${second}`, {
      method: 'PUT',
      token: invitee.token,
    });
    expect(accept.status).toBe(404);
  });
});

describe('account deletion', () => {
  it('removes the account’s memberships and invitations; a last admin is succeeded by the earliest clinician', async () => {
    const { clinicId, admin, member, prescriber } = await clinicWithStaff();
    const invitee = await signUp(app, 'invitee');
    await invite(clinicId, admin.token, invitee.email);
    const deleteAccount = (account: TestAccount) =>
      call(app.url, `/v1/users/${account.userid}`, {
        method: 'DELETE',
        token: account.token,
        json: { password: account.password },
      });
    expect((await deleteAccount(invitee)).status).toBe(204);
    expect((await deleteAccount(admin)).status).toBe(204);
    const left = await call(app.url, `/v1/clinics/${clinicId}/clinicians`, { token: server });
    expect(left.body).toEqual([
      expect.objectContaining({ id: member.userid, roles: ['CLINIC_ADMIN', 'CLINIC_MEMBER'] }),
      expect.objectContaining({ id: prescriber.userid, roles: ['PRESCRIBER'] }),
    ]);
  });
});

const CLINICIAN = 'clinician { clinicId userId inviteId email name roles }';

describe('clinicians over GraphQL', () => {
  it('runs every clinician mutation and reads them through the clinic', async () => {
    const { clinicId, admin, member } = await clinicWithStaff();
    const invitee = await markVerified(app, server, await signUp(app, 'invitee'));
    const run = async (mutation: string, input: Record<string, unknown>, token: string, selection = CLINICIAN) => {
      const type = `${mutation[0].toUpperCase()}${mutation.slice(1)}Input`;
      const inputType =
        {
          ResendClinicianInviteInput: 'ClinicianInviteInput',
          RevokeClinicianInviteInput: 'ClinicianInviteInput',
          AcceptClinicianInviteInput: 'AnswerClinicianInviteInput',
          DeclineClinicianInviteInput: 'AnswerClinicianInviteInput',
        }[type] ?? type;
      const reply = await graphql(
        app.url,
        `mutation ($input: ${inputType}!) { ${mutation}(input: $input) { ${selection} } }`,
        { input },
        token,
      );
      return reply.body;
    };

    const invited = await run(
      'inviteClinician',
      { clinicId, email: invitee.email, roles: ['CLINIC_MEMBER'] },
      admin.token,
    );
    expect(invited.errors).toBeUndefined();
    const inviteId = invited.data.inviteClinician.clinician.inviteId;
    expect(invited.data.inviteClinician.clinician).toMatchObject({ clinicId, userId: null, email: invitee.email });
    expect(
      (await run('resendClinicianInvite', { clinicId, inviteId }, admin.token)).data.resendClinicianInvite,
    ).toBeTruthy();
    const invites = await graphql(
      app.url,
      'query ($id: ID!) { clinicianInvites(userId: $id) { totalCount nodes { inviteId clinic { id name } } } }',
      { id: invitee.userid },
      invitee.token,
    );
    expect(invites.body.data.clinicianInvites).toEqual({
      totalCount: 1,
      nodes: [{ inviteId, clinic: { id: clinicId, name: CLINIC.name } }],
    });
    const accepted = await run('acceptClinicianInvite', { userId: invitee.userid, inviteId }, invitee.token);
    expect(accepted.data.acceptClinicianInvite.clinician).toMatchObject({ userId: invitee.userid, inviteId: null });

    const updated = await run(
      'updateClinician',
      { clinicId, userId: invitee.userid, roles: ['CLINIC_ADMIN'], name: 'New Admin' },
      admin.token,
    );
    expect(updated.data.updateClinician.clinician).toMatchObject({ roles: ['CLINIC_ADMIN'], name: 'New Admin' });
    const refused = await run(
      'updateClinician',
      { clinicId, userId: invitee.userid, roles: ['CLINIC_MEMBER'] },
      member.token,
    );
    expect(refused.errors[0].extensions.code).toBe('FORBIDDEN');

    const second = await run('inviteClinician', { clinicId, email: uniqueEmail(), roles: ['PRESCRIBER'] }, admin.token);
    const secondId = second.data.inviteClinician.clinician.inviteId;
    const revoked = await run('revokeClinicianInvite', { clinicId, inviteId: secondId }, admin.token, 'inviteId');
    expect(revoked.data.revokeClinicianInvite).toEqual({ inviteId: secondId });
    const third = await run(
      'inviteClinician',
      { clinicId, email: member.email.replace('@', '+x@'), roles: ['PRESCRIBER'] },
      admin.token,
    );
    expect(third.errors).toBeUndefined();

    const created = await run('createClinician', { clinicId, email: uniqueEmail(), roles: ['CLINIC_MEMBER'] }, server);
    expect(created.data.createClinician.clinician.inviteId).toMatch(/^[0-9a-f]{24}$/);
    const notServer = await run(
      'createClinician',
      { clinicId, email: uniqueEmail(), roles: ['CLINIC_MEMBER'] },
      admin.token,
    );
    expect(notServer.errors[0].extensions.code).toBe('FORBIDDEN');

    const removed = await run('removeClinician', { clinicId, userId: member.userid }, admin.token, 'clinicId userId');
    expect(removed.data.removeClinician).toEqual({ clinicId, userId: member.userid });
    const lastAdmin = await run('removeClinician', { clinicId, userId: admin.userid }, admin.token, 'userId');
    expect(lastAdmin.errors).toBeUndefined();
    const conflict = await run('removeClinician', { clinicId, userId: invitee.userid }, invitee.token, 'userId');
    expect(conflict.errors[0].extensions.code).toBe('CONFLICT');

    const view = await graphql(
      app.url,
      `
        query ($id: ID!, $userId: ID!, $inviteId: ID!) {
          clinic(id: $id) {
            clinician(userId: $userId) {
              roles
              clinic {
                id
              }
            }
            clinicianInvite(inviteId: $inviteId) {
              email
            }
            clinicians(filter: { role: PRESCRIBER }) {
              totalCount
              nodes {
                email
              }
            }
          }
        }
      `,
      { id: clinicId, userId: invitee.userid, inviteId: third.data.inviteClinician.clinician.inviteId },
      invitee.token,
    );
    expect(view.body.errors).toBeUndefined();
    expect(view.body.data.clinic.clinician).toEqual({ roles: ['CLINIC_ADMIN'], clinic: { id: clinicId } });
    expect(view.body.data.clinic.clinicians.totalCount).toBe(2);

    const declineMissing = await run(
      'declineClinicianInvite',
      { userId: invitee.userid, inviteId: secondId },
      invitee.token,
      'inviteId',
    );
    expect(declineMissing.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('pages clinicians with keyset cursors', async () => {
    const { clinicId, admin, member, prescriber } = await clinicWithStaff();
    const query = `query ($id: ID!, $after: String) { clinic(id: $id) {
      clinicians(first: 2, after: $after) { nodes { userId } pageInfo { hasNextPage endCursor } } } }`;
    const page1 = (await graphql(app.url, query, { id: clinicId }, admin.token)).body.data.clinic.clinicians;
    expect(page1.nodes).toEqual([{ userId: admin.userid }, { userId: member.userid }]);
    const page2 = (await graphql(app.url, query, { id: clinicId, after: page1.pageInfo.endCursor }, admin.token)).body
      .data.clinic.clinicians;
    expect(page2).toEqual({
      nodes: [{ userId: prescriber.userid }],
      pageInfo: { hasNextPage: false, endCursor: expect.any(String) },
    });
  });
});
