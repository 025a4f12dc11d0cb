import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { graphql } from '../support/http';

let app: TestApp;
let alice: TestAccount;
let bob: TestAccount;

beforeAll(async () => {
  app = await startTestApp();
  alice = await signUp(app, 'alice');
  bob = await signUp(app, 'bob');
});
afterAll(async () => {
  await app?.stop();
});

describe('GraphQL users', () => {
  it('answers me and user(id) for the owner', async () => {
    const reply = await graphql(
      app.url,
      'query ($id: ID!) { me { userId username } user(id: $id) { userId emails } }',
      { id: alice.userid },
      alice.token,
    );
    expect(reply.body.data).toEqual({
      me: { userId: alice.userid, username: alice.email },
      user: { userId: alice.userid, emails: [alice.email] },
    });
  });

  it('updates the caller with updateMe and the same rules as REST', async () => {
    const email = uniqueEmail('gql');
    const ok = await graphql(
      app.url,
      'mutation ($e: [String!], $p: String) { updateMe(input: { emails: $e, currentPassword: $p }) { user { emails modifiedUserId } } }',
      { e: [email], p: alice.password },
      alice.token,
    );
    expect(ok.body.data.updateMe.user).toEqual({ emails: [email], modifiedUserId: alice.userid });
    const taken = await graphql(
      app.url,
      'mutation ($e: [String!], $p: String) { updateMe(input: { emails: $e, currentPassword: $p }) { user { emails } } }',
      { e: [bob.email], p: alice.password },
      alice.token,
    );
    expect(taken.body.errors[0].extensions.code).toBe('CONFLICT');
    const verify = await graphql(
      app.url,
      'mutation { updateMe(input: { emailVerified: true }) { user { emailVerified } } }',
      {},
      alice.token,
    );
    expect(verify.body.errors[0]).toMatchObject({
      extensions: { code: 'FORBIDDEN' },
      message: expect.stringMatching(/server token/),
    });
  });

  it('needs the current password to change the password or emails: BAD_USER_INPUT naming it when missing, FORBIDDEN when wrong', async () => {
    const carol = await signUp(app, 'carol');
    const change = (input: Record<string, unknown>) =>
      graphql(
        app.url,
        'mutation ($i: UpdateMeInput!) { updateMe(input: $i) { user { emails } } }',
        { i: input },
        carol.token,
      );
    const email = uniqueEmail('carol');
    for (const input of [{ emails: [email] }, { password: 'taken-over-1' }]) {
      const missing = await change(input);
      expect(missing.body.errors[0]).toMatchObject({
        extensions: { code: 'BAD_USER_INPUT', field: 'currentPassword' },
      });
      const wrong = await change({ ...input, currentPassword: 'not-the-password' });
      expect(wrong.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const me = await graphql(app.url, '{ me { emails } }', {}, carol.token);
    expect(me.body.data.me.emails).toEqual([carol.email]);
    const confirmed = await change({ emails: [email], currentPassword: carol.password });
    expect(confirmed.body.data.updateMe.user.emails).toEqual([email]);
  });

  it('answers user(id) null with FORBIDDEN for other accounts and NOT_FOUND for none, with the request id', async () => {
    const read = await graphql(
      app.url,
      'query ($id: ID!) { me { userId } user(id: $id) { userId } }',
      { id: bob.userid },
      alice.token,
    );
    expect(read.body.data).toEqual({ me: { userId: alice.userid }, user: null });
    expect(read.body.errors[0]).toMatchObject({
      path: ['user'],
      extensions: { code: 'FORBIDDEN', requestId: expect.any(String) },
    });
    const missing = await graphql(app.url, '{ user(id: "0123456789") { userId } }', {}, await serverToken(app));
    expect(missing.body.data).toEqual({ user: null });
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const write = await graphql(
      app.url,
      'mutation ($id: ID!) { updateUser(input: { userId: $id, termsAccepted: "2024-01-01T00:00:00Z" }) { user { userId } } }',
      { id: bob.userid },
      alice.token,
    );
    expect(write.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('creates and deletes custodial accounts with payloads, the deletion naming the deleted id', async () => {
    const created = await graphql(
      app.url,
      'mutation ($c: ID!) { createCustodialUser(input: { custodianId: $c }) { user { userId username } } }',
      { c: alice.userid },
      alice.token,
    );
    const child = created.body.data.createCustodialUser.user;
    expect(child).toEqual({ userId: expect.any(String), username: null });
    const deleted = await graphql(
      app.url,
      'mutation ($id: ID!) { deleteUser(input: { userId: $id }) { deletedUserId } }',
      { id: child.userId },
      alice.token,
    );
    expect(deleted.body).toEqual({ data: { deleteUser: { deletedUserId: child.userId } } });
  });

  it('lets a server token update anyone and see hasPassword', async () => {
    const server = await serverToken(app);
    const reply = await graphql(
      app.url,
      'mutation ($id: ID!) { updateUser(input: { userId: $id, emailVerified: true }) { user { emailVerified hasPassword } } }',
      { id: bob.userid },
      server,
    );
    expect(reply.body.data.updateUser.user).toEqual({ emailVerified: true, hasPassword: true });
    const info = await graphql(app.url, '{ tokenInfo { userId isServer expiresAt } }', {}, server);
    expect(info.body.data.tokenInfo).toEqual({
      userId: expect.any(String),
      isServer: true,
      expiresAt: expect.any(String),
    });
  });

  it('reports bad input with BAD_USER_INPUT naming the field, never an internal error', async () => {
    const badDate = await graphql(
      app.url,
      'mutation { updateMe(input: { termsAccepted: "someday" }) { user { userId } } }',
      {},
      alice.token,
    );
    expect(badDate.body.errors[0].extensions.code).toMatch(/GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT/);
    const badEmail = await graphql(
      app.url,
      'mutation { updateMe(input: { username: "nope" }) { user { userId } } }',
      {},
      alice.token,
    );
    expect(badEmail.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'username' } });
    const badId = await graphql(app.url, '{ user(id: "xyz") { userId } }', {}, alice.token);
    expect(badId.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', requestId: expect.any(String) });
  });

  it('signs up and logs in through GraphQL as well', async () => {
    const email = uniqueEmail('gqlsignup');
    const signup = await graphql(
      app.url,
      'mutation ($i: SignUpInput!) { signUp(input: $i) { session { token userId isServer } user { userId username } } }',
      {
        i: { username: email, emails: [email], password: 'long-enough-1' },
      },
    );
    expect(signup.body.data.signUp.user.username).toBe(email);
    expect(signup.body.data.signUp.session).toMatchObject({
      userId: signup.body.data.signUp.user.userId,
      isServer: false,
    });
    const login = await graphql(
      app.url,
      'mutation ($i: LogInInput!) { logIn(input: $i) { session { token } user { userId } } }',
      { i: { username: email, password: 'long-enough-1' } },
    );
    const me = await graphql(app.url, '{ me { userId } }', {}, login.body.data.logIn.session.token);
    expect(me.body.data.me.userId).toBe(signup.body.data.signUp.user.userId);
  });
});
