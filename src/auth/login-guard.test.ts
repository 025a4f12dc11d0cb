import { describe, expect, it } from '@jest/globals';
import type { Orm } from '../infra/database/orm';
import { createLogger } from '../infra/logger';
import type { AccountDirectory } from './accounts';
import {
  DEFAULT_LOGIN_GUARD,
  failureKeys,
  LoginGuard,
  lockSeconds,
  refusingLock,
  type FailureCount,
} from './login-guard';
import { RefusalHold, type PasswordBudget } from './password-budget';

const now = new Date('2026-01-01T12:00:00Z');
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const count = (failures: number, lockedFor: number | null = null, failedSecondsAgo = 1): FailureCount => ({
  failures,
  lastFailure: later(-failedSecondsAgo),
  lockedUntil: lockedFor === null ? null : later(lockedFor),
});

describe('login guard policy', () => {
  it('locks an account for the source that failed on it, never for a source that did not', () => {
    const seconds = lockSeconds('account_source', DEFAULT_LOGIN_GUARD.accountSourceFailures, DEFAULT_LOGIN_GUARD);
    expect(seconds).toBe(DEFAULT_LOGIN_GUARD.lockSeconds);
    const attacker = { account_source: count(5, seconds), account: count(5) };
    expect(refusingLock(attacker, now, DEFAULT_LOGIN_GUARD)).toBe('account_source');
    // The owner elsewhere: same account counter, no failures of its own.
    expect(refusingLock({ account: count(5) }, now, DEFAULT_LOGIN_GUARD)).toBeNull();
  });

  it('lets a clean source in even while the account is under attack from many sources', () => {
    const underAttack = count(DEFAULT_LOGIN_GUARD.accountFailures, 600);
    expect(refusingLock({ account: underAttack }, now, DEFAULT_LOGIN_GUARD)).toBeNull();
    expect(refusingLock({ account: underAttack, account_source: count(1) }, now, DEFAULT_LOGIN_GUARD)).toBe('account');
    // Failures of that source long forgotten count as none.
    const forgotten = count(1, null, DEFAULT_LOGIN_GUARD.resetSeconds + 1);
    expect(refusingLock({ account: underAttack, account_source: forgotten }, now, DEFAULT_LOGIN_GUARD)).toBeNull();
  });

  it('locks a source that fails on many accounts, for itself only', () => {
    expect(lockSeconds('source', DEFAULT_LOGIN_GUARD.sourceFailures - 1, DEFAULT_LOGIN_GUARD)).toBeNull();
    expect(lockSeconds('source', DEFAULT_LOGIN_GUARD.sourceFailures, DEFAULT_LOGIN_GUARD)).toBe(
      DEFAULT_LOGIN_GUARD.maxLockSeconds,
    );
    expect(refusingLock({ source: count(30, 900) }, now, DEFAULT_LOGIN_GUARD)).toBe('source');
  });

  it('doubles a lock with each further failure, up to 15 minutes, and lets expired locks go', () => {
    const limit = DEFAULT_LOGIN_GUARD.accountSourceFailures;
    expect(lockSeconds('account_source', limit - 1, DEFAULT_LOGIN_GUARD)).toBeNull();
    expect(
      [0, 1, 2, 3, 4, 10].map((extra) => lockSeconds('account_source', limit + extra, DEFAULT_LOGIN_GUARD)),
    ).toEqual([60, 120, 240, 480, 900, 900]);
    expect(refusingLock({ account_source: count(5, -1) }, now, DEFAULT_LOGIN_GUARD)).toBeNull();
  });

  it('keys counters of a known login name by its account, whichever of its names is used', () => {
    const viaEmail = failureKeys('  Ada@Example.org ', '203.0.113.7', '0000000001');
    const viaOtherEmail = failureKeys('lovelace@example.org', '203.0.113.7', '0000000001');
    expect(viaEmail).toEqual({
      account_source: 'pair-id:203.0.113.7 0000000001',
      source: 'source:203.0.113.7',
      account: 'account-id:0000000001',
    });
    expect(viaOtherEmail).toEqual(viaEmail);
    expect(failureKeys('ada@example.org', '198.51.100.1', '0000000001').account).toBe(viaEmail.account);
  });

  it('keys counters of an unknown login name by the name (any case), apart from any account', () => {
    const keys = failureKeys('  Nobody@Example.org ', '203.0.113.7', null);
    expect(keys).toEqual({
      account_source: 'pair:203.0.113.7 nobody@example.org',
      source: 'source:203.0.113.7',
      account: 'account:nobody@example.org',
    });
    // A name shaped like an account key still lands on a key of its own kind.
    const lookalike = failureKeys('id:0000000001', '203.0.113.7', null);
    const account = failureKeys('ada@example.org', '203.0.113.7', '0000000001');
    expect(lookalike.account).not.toBe(account.account);
    expect(lookalike.account_source).not.toBe(account.account_source);
    const long = failureKeys(`${'a'.repeat(300)}@example.org`, 'x'.repeat(500), null);
    for (const key of Object.values(long)) expect(key.length).toBeLessThanOrEqual(320);
  });
});

describe('login guard budget', () => {
  /** Anything the guard would touch after the budget: each use is recorded. */
  const touched: string[] = [];
  const record = (what: string) =>
    new Proxy({}, { get: (_target, name) => (touched.push(`${what}.${String(name)}`), () => Promise.reject()) });
  const spent: PasswordBudget = { spend: async () => 4 };
  const guard = new LoginGuard(
    record('orm') as unknown as Orm,
    record('accounts') as unknown as AccountDirectory,
    createLogger('silent'),
    spent,
    DEFAULT_LOGIN_GUARD,
    new RefusalHold(0),
  );

  it('refuses once the budget is spent, with the seconds to wait, before any lookup or hash', async () => {
    await expect(guard.verify('ada@example.org', 'a guess', '203.0.113.7', 'legacy_login')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { retryAfter: 4 },
    });
    let checked = false;
    const check = async () => (checked = true);
    await expect(guard.confirm('ada@example.org', '203.0.113.7', 'current_password', check)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    await expect(guard.admitHash('203.0.113.7', 'sign_up')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    expect(checked).toBe(false);
    expect(touched).toEqual([]);
  });
});
