import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, uniqueEmail, type TestAccount } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { call } from '../support/http';

let app: TestApp;
let server: string;

beforeAll(async () => {
  app = await startTestApp();
  server = await serverToken(app);
});
afterAll(async () => {
  await app?.stop();
});

describe('POST /auth/user (sign up)', () => {
  it('creates the account, answers 201 with the user and a session token, never a hash', async () => {
    const email = uniqueEmail('signup');
    const reply = await call(app.url, '/auth/user', {
      json: { username: email, emails: [email], password: 'correct-horse-1' },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      userid: expect.stringMatching(/^[0-9a-f]{10}$/),
      username: email,
      emails: [email],
      emailVerified: false,
      createdTime: expect.any(String),
    });
    expect(reply.text).not.toMatch(/argon2|password/i);
    const token = reply.headers.get('x-tidepool-session-token')!;
    const me = await call(app.url, '/auth/user', { token });
    expect(me.body.userid).toBe(reply.body.userid);
  });

  it('accepts the clinic role', async () => {
    const email = uniqueEmail('clinic');
    const reply = await call(app.url, '/auth/user', {
      json: { username: email, emails: [email], password: 'correct-horse-1', roles: ['clinic'] },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.roles).toEqual(['clinic']);
  });

  it('refuses an email that another account uses, whatever its case, with 409', async () => {
    const alice = await signUp(app, 'taken');
    const upper = alice.email.toUpperCase();
    const reply = await call(app.url, '/auth/user', {
      json: { username: upper, emails: [upper], password: 'correct-horse-1' },
    });
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ code: 409, reason: expect.stringContaining('already used'), error: 0 });
  });

  it.each([
    ['a missing password', { emails: ['x@example.org'], username: 'x@example.org' }, /password/],
    [
      'a short password',
      { username: 'p@example.org', emails: ['p@example.org'], password: 'short' },
      /password must be 8 to 72/,
    ],
    [
      'a password with spaces',
      { username: 'p@example.org', emails: ['p@example.org'], password: 'has a space!' },
      /whitespace/,
    ],
    [
      'an email under 6 characters',
      { username: 'a@b.c', emails: ['a@b.c'], password: 'correct-horse-1' },
      /at least 6/,
    ],
    [
      'an invalid email',
      { username: 'not-an-email', emails: ['not-an-email'], password: 'correct-horse-1' },
      /not a valid email/,
    ],
    [
      'duplicate emails',
      { username: 'd@example.org', emails: ['d@example.org', 'D@example.org'], password: 'correct-horse-1' },
      /more than once/,
    ],
    ['no emails', { username: 'e@example.org', emails: [], password: 'correct-horse-1' }, /at least one email/],
    [
      'an unknown role',
      { username: 'r@example.org', emails: ['r@example.org'], password: 'correct-horse-1', roles: ['admin'] },
      /roles contains "admin"/,
    ],
    [
      'an unknown field',
      { username: 'f@example.org', emails: ['f@example.org'], password: 'correct-horse-1', age: 3 },
      /age/,
    ],
  ])('refuses %s with 400 naming the problem', async (_case, body, reason) => {
    const reply = await call(app.url, '/auth/user', { json: body });
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe(400);
    expect(reply.body.reason).toMatch(reason);
  });
});

describe('GET and PUT /auth/user (the logged-in user)', () => {
  let alice: TestAccount;
  beforeAll(async () => {
    alice = await signUp(app, 'alice');
  });

  it('accepts the token as X-Tidepool-Session-Token or Authorization: Bearer', async () => {
    const viaHeader = await call(app.url, '/auth/user', { token: alice.token });
    const viaBearer = await call(app.url, '/auth/user', { headers: { authorization: `Bearer ${alice.token}` } });
    expect(viaHeader.status).toBe(200);
    expect(viaBearer.body).toEqual(viaHeader.body);
  });

  it('applies the wrapped {"updates": ...} body Tidepool clients send', async () => {
    const reply = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: alice.token,
      json: { updates: { termsAccepted: '2024-01-02T03:04:05Z' } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.termsAccepted).toBe('2024-01-02T03:04:05.000Z');
    expect(reply.body.modifiedUserId).toBe(alice.userid);
    expect((await call(app.url, '/auth/user', { token: alice.token })).body.termsAccepted).toBe(
      '2024-01-02T03:04:05.000Z',
    );
  });

  it('applies the flat body of the specification, which requires emailVerified', async () => {
    const email = uniqueEmail('flat');
    const reply = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: alice.token,
      json: { emailVerified: false, emails: [email], currentPassword: alice.password },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.emails).toEqual([email]);
    const missing = await call(app.url, '/auth/user', { method: 'PUT', token: alice.token, json: { emails: [email] } });
    expect(missing.status).toBe(400);
    expect(missing.body.reason).toMatch(/emailVerified is required/);
  });

  it('ignores read-only fields echoed back from a GET', async () => {
    const current = (await call(app.url, '/auth/user', { token: alice.token })).body;
    const reply = await call(app.url, '/auth/user', { method: 'PUT', token: alice.token, json: { updates: current } });
    expect(reply.status).toBe(200);
    expect(reply.body.userid).toBe(alice.userid);
  });

  it('lets the owner change its password; the old one stops working', async () => {
    const reply = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: alice.token,
      json: { updates: { password: 'brand-new-pass', currentPassword: alice.password } },
    });
    expect(reply.status).toBe(200);
    const basic = (password: string) => ({
      authorization: `Basic ${Buffer.from(`${alice.email}:${password}`).toString('base64')}`,
    });
    expect((await call(app.url, '/auth/login', { method: 'POST', headers: basic('brand-new-pass') })).status).toBe(200);
    expect((await call(app.url, '/auth/login', { method: 'POST', headers: basic(alice.password) })).status).toBe(401);
    alice.password = 'brand-new-pass';
  });

  it('needs a server token to change emailVerified or roles (403), but accepts unchanged values', async () => {
    const verify = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: alice.token,
      json: { updates: { emailVerified: true } },
    });
    expect(verify.status).toBe(403);
    expect(verify.body.reason).toMatch(/emailVerified/);
    const roles = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: alice.token,
      json: { updates: { roles: ['clinic'] } },
    });
    expect(roles.status).toBe(403);
    const same = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: alice.token,
      json: { updates: { emailVerified: false, roles: [] } },
    });
    expect(same.status).toBe(200);
    expect((await call(app.url, '/auth/user', { token: alice.token })).body.emailVerified).toBe(false);
  });

  it('answers 409 when the new email belongs to another account and changes nothing', async () => {
    const bob = await signUp(app, 'bob');
    const before = (await call(app.url, '/auth/user', { token: alice.token })).body;
    const reply = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: alice.token,
      json: { updates: { emails: [bob.email], currentPassword: alice.password } },
    });
    expect(reply.status).toBe(409);
    expect((await call(app.url, '/auth/user', { token: alice.token })).body).toEqual(before);
  });
});

describe('the current password an account change needs', () => {
  const basic = (login: string, password: string) => ({
    authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`,
  });
  const put = (token: string, updates: Record<string, unknown>, path = '/auth/user') =>
    call(app.url, path, { method: 'PUT', token, json: { updates } });

  it.each([
    ['the password', { password: 'stolen-token-pass' }],
    ['the username', { username: uniqueEmail('thief') }],
    ['the emails', { emails: [uniqueEmail('thief')] }],
  ])(
    'refuses to change %s without it (400 naming currentPassword) or with a wrong one (403)',
    async (_field, updates) => {
      const victim = await signUp(app, 'victim');
      const before = (await call(app.url, '/auth/user', { token: victim.token })).body;
      const missing = await put(victim.token, updates);
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ code: 400, reason: expect.stringContaining('currentPassword'), error: 0 });
      const wrong = await put(victim.token, { ...updates, currentPassword: 'not-the-password' });
      expect(wrong.status).toBe(403);
      expect(wrong.body).toEqual({ code: 403, reason: expect.stringContaining('currentPassword'), error: 0 });
      expect((await call(app.url, '/auth/user', { token: victim.token })).body).toEqual(before);
      const login = await call(app.url, '/auth/login', {
        method: 'POST',
        headers: basic(victim.email, victim.password),
      });
      expect(login.status).toBe(200);

      const confirmed = await put(victim.token, { ...updates, currentPassword: victim.password });
      expect(confirmed.status).toBe(200);
    },
  );

  it('accepts it in the flat form and needs none for other fields or unchanged values', async () => {
    const owner = await signUp(app, 'owner');
    const echoed = await put(owner.token, {
      username: owner.email,
      emails: [owner.email.toUpperCase()],
      termsAccepted: '2024-01-02T03:04:05Z',
    });
    expect(echoed.status).toBe(200);
    const renamed = uniqueEmail('renamed');
    const flat = await call(app.url, '/auth/user', {
      method: 'PUT',
      token: owner.token,
      json: { emailVerified: false, emails: [renamed], currentPassword: owner.password },
    });
    expect(flat.status).toBe(200);
    expect(flat.body.emails).toEqual([renamed]);
  });

  it('is not asked of server tokens nor of custodians changing their custodial accounts', async () => {
    const dave = await signUp(app, 'dave');
    const byServer = await put(
      server,
      { emails: [uniqueEmail('dave')], password: 'set-by-server-1' },
      `/auth/user/${dave.userid}`,
    );
    expect(byServer.status).toBe(200);

    const parent = await signUp(app, 'parent');
    const kid = await call(app.url, `/auth/user/${parent.userid}/user`, { token: parent.token, json: {} });
    const kidEmail = uniqueEmail('kid');
    const byCustodian = await put(parent.token, { emails: [kidEmail] }, `/auth/user/${kid.body.userid}`);
    expect(byCustodian.status).toBe(200);
    expect(byCustodian.body.emails).toEqual([kidEmail]);
  });

  it('takes only the account’s own current password, never a custodian’s, for an account that has one', async () => {
    const ward = await signUp(app, 'ward');
    const guardian = await signUp(app, 'guardian');
    await call(app.url, `/access/${ward.userid}/${guardian.userid}`, { token: ward.token, json: { custodian: {} } });
    const path = `/auth/user/${ward.userid}`;
    const email = uniqueEmail('ward');
    for (const currentPassword of [undefined, guardian.password]) {
      const refused = await put(guardian.token, { emails: [email], currentPassword }, path);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ code: 403, reason: expect.stringContaining('currentPassword'), error: 0 });
    }
    expect((await call(app.url, path, { token: guardian.token })).body.emails).toEqual([ward.email]);
    // The owner, with its own current password, and server tokens still may.
    expect((await put(ward.token, { emails: [email], currentPassword: ward.password })).status).toBe(200);
    expect((await put(server, { emails: [ward.email] }, path)).status).toBe(200);
  });

  it('does not let a stolen token become permanent access through a custodian grant', async () => {
    const victim = await signUp(app, 'victim');
    const attacker = await signUp(app, 'attacker');
    // With the victim's stolen token, the attacker makes itself the victim's custodian.
    const grant = await call(app.url, `/access/${victim.userid}/${attacker.userid}`, {
      token: victim.token,
      json: { custodian: {}, view: {}, upload: {} },
    });
    expect(grant.status).toBe(200);
    // Then, as custodian, tries to take the victim's login names with its own current password.
    const path = `/auth/user/${victim.userid}`;
    const taken = uniqueEmail('taken');
    for (const updates of [
      { username: taken, emails: [taken], currentPassword: attacker.password },
      { username: taken, currentPassword: attacker.password },
      { emails: [taken], currentPassword: attacker.password },
      { emails: [victim.email, taken], currentPassword: attacker.password },
    ]) {
      const reply = await put(attacker.token, updates, path);
      expect(reply.status).toBe(403);
    }
    const flat = await call(app.url, path, {
      method: 'PUT',
      token: attacker.token,
      json: { emailVerified: false, username: taken, emails: [taken], currentPassword: attacker.password },
    });
    expect(flat.status).toBe(403);
    const account = (await call(app.url, path, { token: server })).body;
    expect({ username: account.username, emails: account.emails }).toEqual({
      username: victim.email,
      emails: [victim.email],
    });
    const login = await call(app.url, '/auth/login', { method: 'POST', headers: basic(victim.email, victim.password) });
    expect(login.status).toBe(200);
  });
});

describe('custodial accounts', () => {
  it('hold only roles the specification allows, and a server may still make one a clinic', async () => {
    const parent = await signUp(app, 'parent');
    const created = await call(app.url, `/auth/user/${parent.userid}/user`, {
      token: parent.token,
      json: { username: uniqueEmail('kid') },
    });
    expect(created.status).toBe(201);
    expect(created.body.roles ?? []).toEqual([]);
    const kid = created.body.userid;
    for (const token of [parent.token, server]) {
      expect((await call(app.url, `/auth/user/${kid}`, { token })).body.roles ?? []).toEqual([]);
    }
    const internal = await call(app.url, `/auth/user/${kid}`, {
      method: 'PUT',
      token: server,
      json: { updates: { roles: ['custodial_account'] } },
    });
    expect(internal.status).toBe(400);
    expect(internal.body.reason).toMatch(/roles contains "custodial_account"/);
    const clinic = await call(app.url, `/auth/user/${kid}`, {
      method: 'PUT',
      token: server,
      json: { updates: { roles: ['clinic'] } },
    });
    expect(clinic.body.roles).toEqual(['clinic']);
  });
});

describe('GET and PUT /auth/user/{userId}', () => {
  it('lets the owner read itself, also by email and under /v1/users', async () => {
    const carol = await signUp(app, 'carol');
    for (const path of [
      `/auth/user/${carol.userid}`,
      `/v1/users/${carol.userid}`,
      `/auth/user/${encodeURIComponent(carol.email)}`,
    ]) {
      const reply = await call(app.url, path, { token: carol.token });
      expect(reply.status).toBe(200);
      expect(reply.body.userid).toBe(carol.userid);
    }
  });

  it('refuses other users with 403 and lets a server token read and update (with passwordExists)', async () => {
    const dave = await signUp(app, 'dave');
    const erin = await signUp(app, 'erin');
    expect((await call(app.url, `/auth/user/${dave.userid}`, { token: erin.token })).status).toBe(403);
    const denied = await call(app.url, `/auth/user/${dave.userid}`, {
      method: 'PUT',
      token: erin.token,
      json: { updates: { emails: [uniqueEmail()] } },
    });
    expect(denied.status).toBe(403);

    const read = await call(app.url, `/auth/user/${dave.userid}`, { token: server });
    expect(read.body).toMatchObject({ userid: dave.userid, passwordExists: true });
    const verified = await call(app.url, `/auth/user/${dave.userid}`, {
      method: 'PUT',
      token: server,
      json: { updates: { emailVerified: true, roles: ['clinic'] } },
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ emailVerified: true, roles: ['clinic'] });
    expect((await call(app.url, '/auth/user', { token: dave.token })).body.passwordExists).toBeUndefined();
  });

  it('answers 404 to a server token for an id nobody has, and 403 to users (existence is not revealed)', async () => {
    const frank = await signUp(app, 'frank');
    expect((await call(app.url, '/auth/user/0123456789', { token: server })).body).toEqual({
      code: 404,
      reason: 'User not found',
      error: 0,
    });
    expect((await call(app.url, '/auth/user/0123456789', { token: frank.token })).status).toBe(403);
  });

  it('answers 400 for a malformed user id', async () => {
    const reply = await call(app.url, '/auth/user/NOT-AN-ID', { token: server });
    expect(reply.status).toBe(400);
    expect(reply.body.reason).toMatch(/not a valid user id|neither a user id/);
  });
});
