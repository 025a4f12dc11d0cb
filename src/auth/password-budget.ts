import { setTimeout as sleep } from 'node:timers/promises';
import { measureChecksPerSecond } from '../domains/users/password-hash';
import { RateLimiter } from '../kernel/rate-limiter';
import type { Logger } from '../infra/logger';
import { passwordBudgetRate } from '../infra/metrics';
import { rateLimited } from '../kernel/errors';

/**
 * How many password hashes (checks, and the new password of a sign-up) are admitted, in all and
 * per source address. A hash costs tens of milliseconds of a core, so without a budget anyone
 * can keep the service busy hashing; a spent budget refuses at once, before any hash or lookup.
 * An interface, so budgets can later be shared by every instance (through PostgreSQL) instead
 * of kept by each.
 */
export interface PasswordBudget {
  /** Spends one hash for `source`: 0 when admitted, else the whole seconds until one would be. */
  spend(source: string): Promise<number>;
}

/** The share of the whole budget one source may use, so one flood leaves room for everyone else. */
export const SOURCE_SHARE = 0.5;

/**
 * A budget kept in this instance's memory: `perSecond` hashes in all, bursts of one second's
 * worth (so at most about a second of hashing ever waits), one source at most half of it.
 */
export class LocalPasswordBudget implements PasswordBudget {
  private readonly overall: RateLimiter;
  private readonly perSource: RateLimiter;

  constructor(readonly perSecond: number) {
    const sourceRate = perSecond * SOURCE_SHARE;
    this.overall = new RateLimiter(perSecond, Math.max(1, perSecond));
    this.perSource = new RateLimiter(sourceRate, Math.max(1, sourceRate));
  }

  async spend(source: string, now = Date.now()): Promise<number> {
    return this.perSource.take(source, now) || this.overall.take('', now);
  }
}

/**
 * Holds the answers to refused attempts for a while (a second by default) before they go out:
 * a timer, no work. A script that sends its next guess as soon as an answer arrives then
 * sends a handful a second instead of thousands of cheap requests that would crowd out every
 * other request's turn. At most `max` answers are held at once; beyond that they go at once,
 * so a flood of new connections cannot pile up held sockets (that is the proxy's to limit).
 */
export class RefusalHold {
  private held = 0;

  constructor(
    private readonly ms = 1000,
    private readonly max = 1000,
  ) {}

  async hold(): Promise<void> {
    if (this.held >= this.max) return;
    this.held += 1;
    try {
      await sleep(this.ms);
    } finally {
      this.held -= 1;
    }
  }
}

/** What a refused attempt answers: 429 with Retry-After on HTTP, RATE_LIMITED in GraphQL. */
export function passwordBudgetSpent(retryAfter: number) {
  return rateLimited(`Too many password attempts; retry in ${retryAfter} s`, retryAfter);
}

/**
 * This instance's budget: PASSWORD_CHECKS_PER_SECOND when set, else what its hashing slots can
 * hash, measured now. Logged and shown at /metrics, so operators see what was chosen.
 */
export async function startPasswordBudget(
  configured: number | undefined,
  logger: Logger,
  measure: () => Promise<number> = measureChecksPerSecond,
): Promise<LocalPasswordBudget> {
  const perSecond = configured ?? (await measure());
  passwordBudgetRate.set(perSecond);
  logger.info({ perSecond, measured: configured === undefined }, 'password hashing budget');
  return new LocalPasswordBudget(perSecond);
}
