import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AS_SERVER, startDomainWorld, type DomainWorld } from '../../../test/support/domain-services';
import { EXTERNAL_API, startExternalIdp, type ExternalIdp } from '../../../test/support/external-idp';
import type { Realm } from '../../config';
import { hexId } from '../../kernel/ids';
import { BrokerService, InvalidSubjectToken, type ExternalIdentity } from './broker.service';
import { IdentityLinks } from './identity-links';
import { IdentityProviders, type IdentityProviderSettings } from './identity-providers';

let world: DomainWorld;
let idp: ExternalIdp;
let broker: BrokerService;
let bySignature: IdentityProviderSettings;
let byUserinfo: IdentityProviderSettings;
let forOtherAudience: IdentityProviderSettings;

beforeAll(async () => {
  [world, idp] = await Promise.all([startDomainWorld(), startExternalIdp()]);
  const provider = (alias: string, extra: Partial<IdentityProviderSettings>): IdentityProviderSettings => ({
    alias,
    issuer: idp.issuer,
    client_id: idp.clientId,
    client_secret: idp.clientSecret,
    ...extra,
  });
  bySignature = provider('ext', { validate_signature: true, audience: EXTERNAL_API });
  byUserinfo = provider('ext-userinfo', { validate_signature: false });
  forOtherAudience = provider('ext-other', { validate_signature: true, audience: 'urn:someone:else' });
  const providers = new Map<Realm, IdentityProviderSettings[]>([['dev1', [bySignature, byUserinfo, forOtherAudience]]]);
  broker = new BrokerService(new IdentityProviders(providers), new IdentityLinks(), world.services.users, world.orm);
});
afterAll(async () => {
  await world?.stop();
  await idp?.close();
});

const email = () => `${hexId(8)}@example.org`;
const identity = (fields: Partial<ExternalIdentity> = {}): ExternalIdentity => ({
  subject: `ext-${randomBytes(6).toString('hex')}`,
  email: email(),
  emailVerified: true,
  ...fields,
});
const accountOf = (userId: string) => world.services.users.findById(world.orm.em.fork(), userId);
const resolve = (who: ExternalIdentity, signedIn: string | null = null, alias = 'ext', realm: Realm = 'dev1') =>
  broker.resolve(realm, alias, who, signedIn);
/** The account the identity signs in as; fails the test when it signs in as none. */
const signsInAs = async (...args: Parameters<typeof resolve>) => {
  const resolution = await resolve(...args);
  if (!('userId' in resolution)) throw new Error(`signs in as no account: ${JSON.stringify(resolution)}`);
  return resolution.userId;
};

describe('which account an external identity signs in as', () => {
  it('a newcomer gets a passwordless account named by its email, and comes back to the same one', async () => {
    const newcomer = identity();
    const userId = await signsInAs(newcomer);
    expect(await accountOf(userId)).toMatchObject({
      username: newcomer.email,
      emails: [newcomer.email],
      passwordHash: null,
      emailVerified: true,
    });
    expect(await resolve({ ...newcomer, email: email() })).toEqual({ userId });
  });

  it('an email the provider has not verified gives an account whose email is not verified', async () => {
    const userId = await signsInAs(identity({ emailVerified: false }));
    expect((await accountOf(userId))?.emailVerified).toBe(false);
  });

  it('an identity arriving while someone is signed in is linked to that account and signs in as it later', async () => {
    const signedIn = await world.account();
    const arriving = identity();
    expect(await resolve(arriving, signedIn)).toEqual({ userId: signedIn });
    expect(await resolve(arriving)).toEqual({ userId: signedIn });
    expect(await world.services.users.findByEmail(world.orm.em.fork(), arriving.email!)).toBeNull();
  });

  it('an identity already linked goes to its own account, whoever is signed in', async () => {
    const linked = identity();
    const userId = await signsInAs(linked);
    expect(await resolve(linked, await world.account())).toEqual({ userId });
  });

  it('an account already using the email is never taken over: nothing is created or linked', async () => {
    const taken = email();
    const owner = await world.account({ email: taken });
    const claimant = identity({ email: taken.toUpperCase() });
    expect(await resolve(claimant)).toEqual({ existingEmail: taken.toUpperCase() });
    expect(await resolve(claimant)).toEqual({ existingEmail: taken.toUpperCase() });
    expect((await world.services.users.findByEmail(world.orm.em.fork(), taken))?.id).toBe(owner);
  });

  it('without an email and without a signed-in account there is nothing to sign in as', async () => {
    expect(await resolve(identity({ email: undefined }))).toEqual({ missingEmail: true });
  });

  it('the same subject through another provider or in another realm is another identity', async () => {
    const person = identity();
    const userId = await signsInAs(person);
    expect(await signsInAs({ ...person, email: email() }, null, 'ext-userinfo')).not.toBe(userId);
    expect(await signsInAs({ ...person, email: email() }, null, 'ext', 'qa1')).not.toBe(userId);
  });

  it('once its account is deleted, the identity is a newcomer again', async () => {
    const person = identity();
    const userId = await signsInAs(person);
    await world.services.lifecycle.delete(world.scope(AS_SERVER), userId, undefined);
    expect(await signsInAs(person)).not.toBe(userId);
  });
});

describe('proving an identity with a subject token', () => {
  const externalUser = (claims: { email?: string; email_verified?: boolean }) => {
    const sub = `ext-${randomBytes(6).toString('hex')}`;
    idp.accounts.set(sub, claims);
    return sub;
  };

  it('an access token is checked at the provider’s userinfo', async () => {
    const address = email();
    const sub = externalUser({ email: address, email_verified: true });
    const token = await idp.accessToken(sub);
    expect(await broker.identityFromSubjectToken('dev1', byUserinfo, token, 'access_token')).toEqual({
      subject: sub,
      email: address,
      emailVerified: true,
    });
  });

  it('a JWT is checked by its signature and audience, its email asked of userinfo when it carries none', async () => {
    const address = email();
    const sub = externalUser({ email: address });
    const token = await idp.jwtAccessToken(sub);
    expect(await broker.identityFromSubjectToken('dev1', bySignature, token, 'jwt')).toEqual({
      subject: sub,
      email: address,
      emailVerified: false,
    });
    await expect(broker.identityFromSubjectToken('dev1', forOtherAudience, token, 'jwt')).rejects.toBeInstanceOf(
      InvalidSubjectToken,
    );
  });

  it('a forged or garbage token proves nothing', async () => {
    const token = await idp.jwtAccessToken(externalUser({ email: email() }));
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${Buffer.from('not the signature').toString('base64url')}`;
    for (const [subjectToken, kind] of [
      [forged, 'jwt'],
      ['garbage', 'jwt'],
      ['garbage', 'access_token'],
    ] as const)
      await expect(broker.identityFromSubjectToken('dev1', bySignature, subjectToken, kind)).rejects.toBeInstanceOf(
        InvalidSubjectToken,
      );
  });
});
