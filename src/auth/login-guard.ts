import type { Orm } from '../infra/database/orm';
import type { Logger } from '../infra/logger';
import type { Account, AccountDirectory } from './accounts';

export interface LoginGuardSettings {
  /** Consecutive failures an account may have before it is locked. */
  accountFailures: number;
  /** Failures one source address may have within `sourceWindowSeconds`. */
  sourceFailures: number;
  sourceWindowSeconds: number;
  /** First lockout; each further failure doubles it, up to `maxLockSeconds`. */
  lockSeconds: number;
  maxLockSeconds: number;
  /** Failures older than this are forgotten. */
  resetSeconds: number;
}

export const DEFAULT_LOGIN_GUARD: LoginGuardSettings = {
  accountFailures: 5,
  sourceFailures: 30,
  sourceWindowSeconds: 15 * 60,
  lockSeconds: 60,
  maxLockSeconds: 15 * 60,
  resetSeconds: 12 * 3600,
};

/**
 * Brute-force protection for every password check (login page, /auth/login, password grant):
 * after repeated failures an account, or a source address, is locked for a while. A locked
 * login is refused exactly like a wrong password, so an attacker learns nothing; the lockout is
 * logged. Counters live in PostgreSQL, so every instance sees them.
 */
export class LoginGuard {
  constructor(
    private readonly orm: Orm,
    private readonly accounts: AccountDirectory,
    private readonly logger: Logger,
    private readonly settings: LoginGuardSettings = DEFAULT_LOGIN_GUARD,
  ) {}

  /** The account, when the credentials match and neither the account nor the source is locked. */
  async verify(loginName: string, password: string, source: string): Promise<Account | null> {
    const keys = [`account:${loginName.trim().toLowerCase().slice(0, 254)}`, `source:${source}`];
    const locked = await this.lockedKeys(keys);
    if (locked.length) {
      this.logger.warn({ locked, source }, 'login refused: locked after repeated failures');
      await this.accounts.authenticate('', password).catch(() => null);
      return null;
    }
    const account = await this.accounts.authenticate(loginName, password);
    if (account) await this.forget(keys[0]);
    else await this.recordFailure(keys);
    return account;
  }

  private async lockedKeys(keys: string[]): Promise<string[]> {
    const rows = await this.orm.em
      .getConnection()
      .execute<{ key: string }[]>('select key from login_failures where key in (?, ?) and locked_until > now()', keys);
    return rows.map((row) => row.key);
  }

  private async forget(key: string): Promise<void> {
    await this.orm.em.getConnection().execute('delete from login_failures where key = ?', [key]);
  }

  private async recordFailure([accountKey, sourceKey]: string[]): Promise<void> {
    const { accountFailures, sourceFailures, sourceWindowSeconds, lockSeconds, maxLockSeconds, resetSeconds } =
      this.settings;
    const rows = await this.orm.em
      .getConnection()
      .execute<{ key: string; failures: number; locked_until: Date | null }[]>(
        `insert into login_failures as f (key, failures, last_failure, locked_until)
       values (?, 1, now(), null), (?, 1, now(), null)
       on conflict (key) do update set
         failures = case when f.last_failure < now() - make_interval(secs => case when f.key like 'source:%' then ? else ? end)
                         then 1 else f.failures + 1 end,
         last_failure = now()
       returning key, failures, locked_until`,
        [accountKey, sourceKey, sourceWindowSeconds, resetSeconds],
      );
    for (const row of rows) {
      const limit = row.key === sourceKey ? sourceFailures : accountFailures;
      if (row.failures < limit) continue;
      const seconds =
        row.key === sourceKey ? maxLockSeconds : Math.min(maxLockSeconds, lockSeconds * 2 ** (row.failures - limit));
      await this.orm.em
        .getConnection()
        .execute('update login_failures set locked_until = now() + make_interval(secs => ?) where key = ?', [
          seconds,
          row.key,
        ]);
      this.logger.warn(
        { key: row.key, failures: row.failures, lockedSeconds: seconds },
        'login locked after repeated failures',
      );
    }
  }
}
