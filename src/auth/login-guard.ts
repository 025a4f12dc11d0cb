import type { Orm } from '../infra/database/orm';
import { sqlOutsideTransactions } from '../infra/database/sql-outside-transactions';
import type { SqlRunner } from '../infra/database/sql-runner';
import type { Logger } from '../infra/logger';
import { loginFailures, loginLockouts, type LockKind, type PasswordPath } from '../infra/metrics';
import type { Account, AccountDirectory } from './accounts';
import { passwordBudgetSpent, RefusalHold, type PasswordBudget } from './password-budget';

export type { LockKind, PasswordPath };

export interface LoginGuardSettings {
  /** Failures one source may have on one account before that pair is locked. */
  accountSourceFailures: number;
  /** Failures one source address may have, on any accounts, within `sourceWindowSeconds`. */
  sourceFailures: number;
  sourceWindowSeconds: number;
  /**
   * Failures one account may have from all sources together before it counts as under attack:
   * then sources that have failed on it are refused, while others still log in.
   */
  accountFailures: number;
  /** First lockout; each further failure doubles it, up to `maxLockSeconds`. */
  lockSeconds: number;
  maxLockSeconds: number;
  /** Failures older than this are forgotten. */
  resetSeconds: number;
}

export const DEFAULT_LOGIN_GUARD: LoginGuardSettings = {
  accountSourceFailures: 5,
  sourceFailures: 30,
  sourceWindowSeconds: 15 * 60,
  accountFailures: 20,
  lockSeconds: 60,
  maxLockSeconds: 15 * 60,
  resetSeconds: 12 * 3600,
};

/** One counter of failures (a row of `login_failures`). */
export interface FailureCount {
  failures: number;
  lastFailure: Date;
  lockedUntil: Date | null;
}

export type FailureCounts = Partial<Record<LockKind, FailureCount>>;

/**
 * Which lock refuses an attempt, if any. Failures count per account and source together, so
 * a stranger who knows an email address can lock only itself out, never the owner: a source
 * is refused for its own failures (on that account, or on too many accounts), and an account
 * under attack from many sources refuses only sources that have failed on it.
 */
export function refusingLock(counts: FailureCounts, now: Date, settings: LoginGuardSettings): LockKind | null {
  const locked = (count?: FailureCount) => !!count?.lockedUntil && count.lockedUntil > now;
  if (locked(counts.account_source)) return 'account_source';
  if (locked(counts.source)) return 'source';
  const pair = counts.account_source;
  const failedHere =
    !!pair && pair.failures > 0 && now.getTime() - pair.lastFailure.getTime() < settings.resetSeconds * 1000;
  return locked(counts.account) && failedHere ? 'account' : null;
}

/** How long a counter that has just reached `failures` locks, or null below its limit. */
export function lockSeconds(kind: LockKind, failures: number, settings: LoginGuardSettings): number | null {
  const limit = {
    account_source: settings.accountSourceFailures,
    source: settings.sourceFailures,
    account: settings.accountFailures,
  }[kind];
  if (failures < limit) return null;
  if (kind === 'source') return settings.maxLockSeconds;
  return Math.min(settings.maxLockSeconds, settings.lockSeconds * 2 ** (failures - limit));
}

/**
 * The `login_failures` keys of one attempt. Sources are addresses; a forwarded one is capped. A
 * login name that belongs to an account counts for the account (`accountId`), so that its
 * username and each of its emails share one budget of guesses; an unknown name counts for
 * itself, under keys of their own kind, so no name can reach an account's counters.
 */
export function failureKeys(loginName: string, source: string, accountId: string | null): Record<LockKind, string> {
  const login = loginName.trim().toLowerCase().slice(0, 254);
  const from = source.slice(0, 60);
  if (accountId !== null) {
    return {
      account_source: `pair-id:${from} ${accountId}`,
      source: `source:${from}`,
      account: `account-id:${accountId}`,
    };
  }
  return { account_source: `pair:${from} ${login}`, source: `source:${from}`, account: `account:${login}` };
}

/**
 * Brute-force protection for every password check (login page, /auth/login, password grant,
 * the current password of an account change). First the password budget: once spent, the
 * attempt is refused (RATE_LIMITED, with the seconds to wait; the answer held a while) before
 * any lookup or hash. Then the lockouts: a locked attempt answers like a wrong password, without hashing (what it would
 * tell by being quick, its source already knows: it failed there); each lockout is logged and
 * counted in the metrics. Failure counters live in PostgreSQL, so every instance sees them.
 */
export class LoginGuard {
  constructor(
    private readonly orm: Orm,
    private readonly accounts: AccountDirectory,
    private readonly logger: Logger,
    private readonly budget: PasswordBudget,
    private readonly settings: LoginGuardSettings = DEFAULT_LOGIN_GUARD,
    private readonly refusals = new RefusalHold(),
  ) {}

  /**
   * The counters' runner, outside any transaction: a failure counts even when what checked the
   * password rolls back. Made when a counter is read, so a refusal by the budget touches nothing.
   */
  private sql(): SqlRunner {
    return sqlOutsideTransactions(this.orm);
  }

  /** Spends one hash of the password budget for `source`, or refuses with RATE_LIMITED (held a while). */
  async admitHash(source: string, path: PasswordPath): Promise<void> {
    const wait = await this.budget.spend(source);
    if (wait === 0) return;
    loginFailures.inc({ path, reason: 'rate_limited' });
    await this.refusals.hold();
    throw passwordBudgetSpent(wait);
  }

  /**
   * The account, when the credentials match and no lock refuses this source. Credentials with a
   * NUL match no account (PostgreSQL cannot store one): refused as wrong, without a statement
   * the database would reject.
   */
  async verify(loginName: string, password: string, source: string, path: PasswordPath): Promise<Account | null> {
    if (`${loginName}${password}`.includes('\u0000')) return null;
    return this.attempt(loginName, source, path, () => this.accounts.authenticate(loginName, password));
  }

  /** Runs a password check under the same protection; true when `check` accepted it. */
  async confirm(loginName: string, source: string, path: PasswordPath, check: () => Promise<boolean>) {
    return (await this.attempt(loginName, source, path, async () => ((await check()) ? true : null))) === true;
  }

  private async attempt<T>(
    loginName: string,
    source: string,
    path: PasswordPath,
    check: () => Promise<T | null>,
  ): Promise<T | null> {
    await this.admitHash(source, path);
    // Looked up for every name, known or not, so the answer's timing tells nothing.
    const accountId = await this.accounts.accountIdOf(loginName);
    const keys = failureKeys(loginName, source, accountId);
    const counts = await this.counts(keys);
    const lock = refusingLock(counts, new Date(), this.settings);
    if (lock) {
      loginFailures.inc({ path, reason: 'locked' });
      this.logger.warn({ lock, source, path }, 'login refused: locked after repeated failures');
      return null;
    }
    const result = await check();
    if (result !== null) {
      await this.forget(keys.account_source);
      return result;
    }
    loginFailures.inc({ path, reason: 'invalid_credentials' });
    await this.recordFailure(keys, path, loginName);
    return null;
  }

  private async counts(keys: Record<LockKind, string>): Promise<FailureCounts> {
    const rows = await this.sql().rows<{
      key: string;
      failures: number;
      last_failure: Date;
      locked_until: Date | null;
    }>('select key, failures, last_failure, locked_until from login_failures where key in (?, ?, ?)', [
      keys.account_source,
      keys.source,
      keys.account,
    ]);
    const counts: FailureCounts = {};
    for (const kind of Object.keys(keys) as LockKind[]) {
      const row = rows.find((candidate) => candidate.key === keys[kind]);
      if (row) {
        counts[kind] = {
          failures: row.failures,
          lastFailure: new Date(row.last_failure),
          lockedUntil: row.locked_until && new Date(row.locked_until),
        };
      }
    }
    return counts;
  }

  private async forget(key: string): Promise<void> {
    await this.sql().run('delete from login_failures where key = ?', [key]);
  }

  private async recordFailure(keys: Record<LockKind, string>, path: PasswordPath, loginName: string): Promise<void> {
    const { sourceWindowSeconds, resetSeconds } = this.settings;
    const rows = await this.sql().rows<{ key: string; failures: number }>(
      `insert into login_failures as f (key, failures, last_failure, locked_until)
         values (?, 1, now(), null), (?, 1, now(), null), (?, 1, now(), null)
         on conflict (key) do update set
           failures = case when f.last_failure < now() - make_interval(secs => case when f.key like 'source:%' then ? else ? end)
                           then 1 else f.failures + 1 end,
           last_failure = now()
         returning key, failures`,
      [keys.account_source, keys.source, keys.account, sourceWindowSeconds, resetSeconds],
    );
    for (const kind of Object.keys(keys) as LockKind[]) {
      const row = rows.find((candidate) => candidate.key === keys[kind]);
      const seconds = row && lockSeconds(kind, row.failures, this.settings);
      if (!row || !seconds) continue;
      await this.sql().run('update login_failures set locked_until = now() + make_interval(secs => ?) where key = ?', [
        seconds,
        row.key,
      ]);
      loginLockouts.inc({ path, lock: kind });
      this.logger.warn(
        {
          lock: kind,
          ...(kind === 'source' ? {} : { loginName: loginName.trim().toLowerCase().slice(0, 254) }),
          source: kind === 'account' ? undefined : keys.source.slice('source:'.length),
          failures: row.failures,
          lockedSeconds: seconds,
          path,
        },
        'login locked after repeated failures',
      );
    }
  }
}
