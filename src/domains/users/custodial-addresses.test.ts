import { describe, expect, it } from '@jest/globals';
import { isCustodial, releasing, verificationAddress, yieldsToSignUp } from './custodial-addresses';

describe('custodial accounts and their addresses', () => {
  it('a custodial account was created by another account and has no password of its own', () => {
    expect(isCustodial({ passwordHash: null, createdUserId: '0123456789' })).toBe(true);
    // Claimed since (it set a password), signed up on its own, or provisioned from an identity provider.
    expect(isCustodial({ passwordHash: '$argon2id$…', createdUserId: '0123456789' })).toBe(false);
    expect(isCustodial({ passwordHash: '$argon2id$…', createdUserId: null })).toBe(false);
    expect(isCustodial({ passwordHash: null, createdUserId: null })).toBe(false);
  });

  it('releasing an address takes it from the username and the emails, in any letter case, and nothing else', () => {
    const account = { username: 'Kid@Example.org', emails: ['Kid@Example.org', 'parent@example.org'] };
    expect(releasing(account, 'kid@example.org')).toEqual({ username: null, emails: ['parent@example.org'] });
    expect(releasing(account, 'parent@example.org')).toEqual({
      username: 'Kid@Example.org',
      emails: ['Kid@Example.org'],
    });
  });

  it('an account verifies one address: its username, else its first email', () => {
    expect(verificationAddress({ username: 'Me@Example.org', emails: ['other@example.org'] })).toBe('me@example.org');
    expect(verificationAddress({ username: null, emails: ['First@example.org', 'b@example.org'] })).toBe(
      'first@example.org',
    );
    expect(verificationAddress({ username: null, emails: [] })).toBeNull();
  });

  it('a sign-up takes any address of a custodial account, and any other address but the one its holder verifies by', () => {
    const person = { username: 'me@example.org', emails: ['me@example.org', 'typed@example.org'] };
    const own = { ...person, passwordHash: '$argon2id$…', createdUserId: null };
    expect(yieldsToSignUp(own, 'typed@example.org')).toBe(true);
    expect(yieldsToSignUp(own, 'me@example.org')).toBe(false);
    const custodial = { ...person, passwordHash: null, createdUserId: '0123456789' };
    expect(yieldsToSignUp(custodial, 'me@example.org')).toBe(true);
  });
});
