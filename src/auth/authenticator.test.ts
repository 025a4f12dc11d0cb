import { describe, expect, it } from '@jest/globals';
import { ANONYMOUS, type Principal } from '../kernel/principal';
import { Authenticator } from './authenticator';
import type { SessionRevocations } from './session-revocations';
import type { TokenVerifier } from './token-verifier';

const ended = new Set(['dev1:grant-ended']);
const revocations = {
  isRevoked: (realm: string, key: string) => ended.has(`${realm}:${key}`),
} as unknown as SessionRevocations;
const authenticator = new Authenticator({} as TokenVerifier, revocations);
const user = (grantId: string | null): Principal => ({
  ...ANONYMOUS,
  userId: 'a1b2c3d4e5',
  realm: 'dev1',
  grantId,
  expiresAt: 2_000_000_000,
});

describe('Authenticator.isLive', () => {
  it('says a principal’s session lives until it is revoked', () => {
    expect(authenticator.isLive(user('grant-live'))).toBe(true);
    expect(authenticator.isLive(user('grant-ended'))).toBe(false);
  });

  it('has nothing to end for principals without a session (anonymous, service accounts)', () => {
    expect(authenticator.isLive(ANONYMOUS)).toBe(true);
    expect(authenticator.isLive(user(null))).toBe(true);
  });
});
