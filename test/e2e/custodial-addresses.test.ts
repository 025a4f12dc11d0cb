import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverToken, signUp, uniqueEmail } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/app';
import { clinicWithStaff } from '../support/clinics';
import { call, graphql } from '../support/http';

/**
 * An address on a custodial account (created for someone by another account, never given a
 * password) does not keep the person it names from signing up: the sign-up takes it, and the
 * custodial account gives it up. Before, anyone could reserve anyone's address that way.
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

const PASSWORD = 'the-real-person-1';
const signUpRest = (address: string) =>
  call(app.url, '/auth/user', { json: { username: address, emails: [address], password: PASSWORD } });
const SIGN_UP = 'mutation ($i: SignUpInput!) { signUp(input: $i) { user { userId username } } }';

describe('signing up with an address a custodial account holds', () => {
  it('over REST: the sign-up succeeds, logs in, and the custodial account no longer holds the address', async () => {
    const squatter = await signUp(app, 'squatter');
    const victim = uniqueEmail('victim');
    const custodial = await call(app.url, `/auth/user/${squatter.userid}/user`, {
      token: squatter.token,
      json: { username: victim, emails: [victim] },
    });
    expect(custodial.status).toBe(201);

    const person = await signUpRest(victim);
    expect(person.status).toBe(201);
    const login = await call(app.url, '/auth/login', {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${victim}:${PASSWORD}`).toString('base64')}` },
    });
    expect(login.status).toBe(200);
    expect(login.body.userid).toBe(person.body.userid);
    const released = await call(app.url, `/auth/user/${custodial.body.userid}`, { token: squatter.token });
    expect(released.status).toBe(200);
    expect(released.body.emails ?? []).toEqual([]);
    expect(released.body.username).toBeUndefined();
  });

  it('over GraphQL, for a patient account a clinic created: the clinic keeps its record of the patient', async () => {
    const { clinicId, member } = await clinicWithStaff(app, server);
    const address = uniqueEmail('patient');
    const created = await call(app.url, `/v1/clinics/${clinicId}/patients`, {
      token: member.token,
      json: { fullName: 'Pat Ient', birthDate: '2001-02-03', email: address },
    });
    expect(created.status).toBe(200);

    const person = await graphql(app.url, SIGN_UP, { i: { username: address, emails: [address], password: PASSWORD } });
    expect(person.body.errors).toBeUndefined();
    expect(person.body.data.signUp.user.username).toBe(address);
    expect(person.body.data.signUp.user.userId).not.toBe(created.body.id);
    const record = await call(app.url, `/v1/clinics/${clinicId}/patients/${created.body.id}`, { token: member.token });
    expect(record.body.email).toBe(address);
  });

  it('an address of an account someone signed up with stays taken (409)', async () => {
    const owner = await signUp(app, 'owner');
    expect((await signUpRest(owner.email)).status).toBe(409);
    const refused = await graphql(app.url, SIGN_UP, {
      i: { username: owner.email, emails: [owner.email], password: PASSWORD },
    });
    expect(refused.body.errors[0].extensions.code).toBe('CONFLICT');
  });
});
