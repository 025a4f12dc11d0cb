import { describe, expect, it } from '@jest/globals';
import { createLogger } from '../infra/logger';
import { registry } from '../infra/metrics';
import { isAppError } from '../kernel/errors';
import { LocalPasswordBudget, passwordBudgetSpent, RefusalHold, startPasswordBudget } from './password-budget';

const start = 1_000_000;
const spendMany = async (budget: LocalPasswordBudget, source: string, times: number, now = start) => {
  const waits: number[] = [];
  for (let i = 0; i < times; i += 1) waits.push(await budget.spend(source, now));
  return waits;
};

describe('the password budget', () => {
  it('gives one source half of the budget, in bursts of at most a second’s worth', async () => {
    const budget = new LocalPasswordBudget(20);
    const waits = await spendMany(budget, '203.0.113.7', 15);
    expect(waits.filter((wait) => wait === 0)).toHaveLength(10);
    expect(waits.slice(10)).toEqual([1, 1, 1, 1, 1]);
    // Its share refills at half the rate: one more every 100 ms.
    expect(await budget.spend('203.0.113.7', start + 100)).toBe(0);
    expect(await budget.spend('203.0.113.7', start + 100)).toBe(1);
  });

  it('leaves the other half to other sources, and refuses everyone once the whole budget is spent', async () => {
    const budget = new LocalPasswordBudget(20);
    await spendMany(budget, '203.0.113.7', 30);
    const others = await Promise.all(Array.from({ length: 12 }, (_, i) => budget.spend(`198.51.100.${i}`, start)));
    expect(others.filter((wait) => wait === 0)).toHaveLength(10);
    expect(others.slice(10)).toEqual([1, 1]);
    expect(await budget.spend('192.0.2.1', start + 1000)).toBe(0);
  });

  it('admits at least one hash at a time however small the budget', async () => {
    const budget = new LocalPasswordBudget(1);
    expect(await spendMany(budget, '203.0.113.7', 2)).toEqual([0, 2]);
    expect(await budget.spend('203.0.113.7', start + 2000)).toBe(0);
  });

  it('is sized from the measured hashing rate unless one is configured, and shows it at /metrics', async () => {
    const logger = createLogger('silent');
    const measured = await startPasswordBudget(undefined, logger, async () => 37.5);
    expect(measured.perSecond).toBe(37.5);
    expect(await registry.getSingleMetricAsString('islet_password_budget_per_second')).toMatch(/ 37\.5$/m);
    let measuredAgain = false;
    const configured = await startPasswordBudget(12, logger, async () => {
      measuredAgain = true;
      return 1;
    });
    expect(configured.perSecond).toBe(12);
    expect(measuredAgain).toBe(false);
  });

  it('refuses with RATE_LIMITED, naming the seconds to wait', () => {
    const refusal = passwordBudgetSpent(3);
    expect(isAppError(refusal) && refusal.code).toBe('RATE_LIMITED');
    expect(refusal.details).toEqual({ retryAfter: 3 });
    expect(refusal.message).toBe('Too many password attempts; retry in 3 s');
  });
});

describe('held refusals', () => {
  it('are held up to a number at once; beyond it, answered at once', async () => {
    const refusals = new RefusalHold(50, 2);
    const answered: string[] = [];
    const held = [refusals.hold(), refusals.hold()].map((hold, i) => hold.then(() => answered.push(`held ${i}`)));
    await refusals.hold();
    answered.push('beyond the limit');
    expect(answered).toEqual(['beyond the limit']);
    await Promise.all(held);
    await refusals.hold();
    expect(answered).toEqual(['beyond the limit', 'held 0', 'held 1']);
  });
});
