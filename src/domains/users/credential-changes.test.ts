import { describe, expect, it } from '@jest/globals';
import { ANONYMOUS, type Principal } from '../../kernel/principal';
import { changesCredentials, needsCurrentPassword } from './credential-changes';

const owner = { id: '0000000001', username: 'ada@example.org', emails: ['ada@example.org'], passwordHash: 'hash' };
const custodial = { id: '0000000002', username: null, emails: ['kid@example.org'], passwordHash: null };
const as = (userId: string | null, isServer = false): Principal => ({ ...ANONYMOUS, userId, isServer });

describe('the current-password rule', () => {
  it('asks the owner to confirm a new password, username or emails', () => {
    for (const changes of [
      { password: 'new-password-1' },
      { username: 'grace@example.org' },
      { emails: ['ada@example.org', 'grace@example.org'] },
    ]) {
      expect(needsCurrentPassword(as(owner.id), owner, changes)).toBe(true);
    }
  });

  it('asks nothing for other fields or for the current values echoed back', () => {
    expect(needsCurrentPassword(as(owner.id), owner, {})).toBe(false);
    expect(
      needsCurrentPassword(as(owner.id), owner, { username: 'ADA@example.org', emails: ['Ada@Example.org'] }),
    ).toBe(false);
    expect(changesCredentials(owner, { emails: ['ada@example.org'] })).toBe(false);
  });

  it('spares server tokens and custodians of custodial accounts', () => {
    expect(needsCurrentPassword(as(null, true), owner, { password: 'new-password-1' })).toBe(false);
    expect(needsCurrentPassword(as(owner.id), custodial, { emails: ['renamed@example.org'] })).toBe(false);
  });

  it('never takes a custodian’s own password for an account that has one: only its owner confirms', () => {
    for (const changes of [
      { emails: ['renamed@example.org'] },
      { username: 'renamed@example.org' },
      { password: 'new-password-1' },
    ]) {
      expect(() => needsCurrentPassword(as('0000000003'), owner, changes)).toThrow(
        expect.objectContaining({ code: 'FORBIDDEN', message: expect.stringContaining('currentPassword') }),
      );
    }
    // Nothing to confirm when nothing that decides the login changes.
    expect(needsCurrentPassword(as('0000000003'), owner, { emails: ['ADA@example.org'] })).toBe(false);
  });

  it('asks the owner of an account without a password too (it has none to confirm with)', () => {
    expect(needsCurrentPassword(as(custodial.id), custodial, { emails: ['renamed@example.org'] })).toBe(true);
  });
});
