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
      'query ($id: ID!) { me { userid username } user(id: $id) { userid emails } }',
      { id: alice.userid },
      alice.token,
    );
    expect(reply.body.data).toEqual({
      me: { userid: alice.userid, username: alice.email },
      user: { userid: alice.userid, emails: [alice.email] },
    });
  });

  it('updates the caller with updateMe and the same rules as REST', async () => {
    const email = uniqueEmail('gql');
    const ok = await graphql(
      app.url,
      'mutation ($e: [String!], $p: String) { updateMe(input: { emails: $e, currentPassword: $p }) { emails modifiedUserId } }',
      { e: [email], p: alice.password },
      alice.token,
    );
    expect(ok.body.data.updateMe).toEqual({ emails: [email], modifiedUserId: alice.userid });
    const taken = await graphql(
      app.url,
      'mutation ($e: [String!], $p: String) { updateMe(input: { emails: $e, currentPassword: $p }) { emails } }',
      { e: [bob.email], p: alice.password },
      alice.token,
    );
    expect(taken.body.errors[0].extensions.code).toBe('CONFLICT');
    const verify = await graphql(
      app.url,
      'mutation { updateMe(input: { emailVerified: true }) { emailVerified } }',
      {},
      alice.token,
    );
    expect(verify.body.errors[0]).toMatchObject({
      extensions: { code: 'FORBIDDEN' },
      message: expect.stringMatching(/server token/),
    });
  });

  it('needs the current password to change the password or emails: INVALID naming it when missing, FORBIDDEN when wrong', async () => {
    const carol = await signUp(app, 'carol');
    const change = (input: Record<string, unknown>) =>
      graphql(app.url, 'mutation ($i: UserUpdateInput!) { updateMe(input: $i) { emails } }', { i: input }, carol.token);
    const email = uniqueEmail('carol');
    for (const input of [{ emails: [email] }, { password: 'taken-over-1' }]) {
      const missing = await change(input);
      expect(missing.body.errors[0]).toMatchObject({ extensions: { code: 'INVALID', field: 'currentPassword' } });
      const wrong = await change({ ...input, currentPassword: 'not-the-password' });
      expect(wrong.body.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const me = await graphql(app.url, '{ me { emails } }', {}, carol.token);
    expect(me.body.data.me.emails).toEqual([carol.email]);
    const confirmed = await change({ emails: [email], currentPassword: carol.password });
    expect(confirmed.body.data.updateMe.emails).toEqual([email]);
  });

  it('refuses user(id) and updateUser on other accounts with FORBIDDEN', async () => {
    const read = await graphql(
      app.url,
      'query ($id: ID!) { user(id: $id) { userid } }',
      { id: bob.userid },
      alice.token,
    );
    expect(read.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const write = await graphql(
      app.url,
      'mutation ($id: ID!) { updateUser(id: $id, input: { termsAccepted: "2024-01-01T00:00:00Z" }) { userid } }',
      { id: bob.userid },
      alice.token,
    );
    expect(write.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('lets a server token update anyone and see passwordExists', async () => {
    const server = await serverToken(app);
    const reply = await graphql(
      app.url,
      'mutation ($id: ID!) { updateUser(id: $id, input: { emailVerified: true }) { emailVerified passwordExists } }',
      { id: bob.userid },
      server,
    );
    expect(reply.body.data.updateUser).toEqual({ emailVerified: true, passwordExists: true });
  });

  it('reports bad input with BAD_USER_INPUT or INVALID, never an internal error', async () => {
    const badDate = await graphql(
      app.url,
      'mutation { updateMe(input: { termsAccepted: "someday" }) { userid } }',
      {},
      alice.token,
    );
    expect(badDate.body.errors[0].extensions.code).toMatch(/GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT/);
    const badEmail = await graphql(
      app.url,
      'mutation { updateMe(input: { username: "nope" }) { userid } }',
      {},
      alice.token,
    );
    expect(badEmail.body.errors[0]).toMatchObject({ extensions: { code: 'INVALID', field: 'username' } });
    const badId = await graphql(app.url, '{ user(id: "xyz") { userid } }', {}, alice.token);
    expect(badId.body.errors[0].extensions.code).toBe('INVALID');
  });

  it('signs up and logs in through GraphQL as well', async () => {
    const email = uniqueEmail('gqlsignup');
    const signup = await graphql(
      app.url,
      'mutation ($i: SignUpInput!) { signUp(input: $i) { token user { userid username } } }',
      {
        i: { username: email, emails: [email], password: 'long-enough-1' },
      },
    );
    expect(signup.body.data.signUp.user.username).toBe(email);
    const login = await graphql(
      app.url,
      'mutation ($u: String!, $p: String!) { logIn(username: $u, password: $p) { token user { userid } } }',
      {
        u: email,
        p: 'long-enough-1',
      },
    );
    const me = await graphql(app.url, '{ me { userid } }', {}, login.body.data.logIn.token);
    expect(me.body.data.me.userid).toBe(signup.body.data.signUp.user.userid);
  });
});
