import { describe, expect, it } from '@jest/globals';
import { isCustodial, releasing } from './custodial-addresses';

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
});
