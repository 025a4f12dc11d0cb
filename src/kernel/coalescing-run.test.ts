import { describe, expect, it } from '@jest/globals';
import { CoalescingRun } from './coalescing-run';

/** A pass that waits until released, counting how many started. */
function gatedPass() {
  let started = 0;
  let release: () => void = () => undefined;
  const pass = () => {
    started += 1;
    return new Promise<void>((resolve) => (release = resolve));
  };
  return { pass, started: () => started, release: () => release() };
}

describe('a coalescing run', () => {
  it('runs one pass at a time and folds nudges during a pass into one more pass', async () => {
    const gate = gatedPass();
    const run = new CoalescingRun(gate.pass, () => undefined);
    run.nudge();
    run.nudge();
    run.nudge();
    expect(gate.started()).toBe(1);
    gate.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(gate.started()).toBe(2);
    gate.release();
    await run.idle();
    expect(gate.started()).toBe(2);
  });

  it('reports a failed pass, settles only when nothing more is asked, and starts nothing once closed', async () => {
    const errors: unknown[] = [];
    let settled = 0;
    const run = new CoalescingRun(
      () => Promise.reject(new Error('boom')),
      (error) => errors.push(error),
      () => (settled += 1),
    );
    run.nudge();
    await run.idle();
    expect([errors.length, settled]).toEqual([1, 1]);
    await run.close();
    run.nudge();
    await run.idle();
    expect([errors.length, settled, run.isClosed]).toEqual([1, 1, true]);
  });
});
