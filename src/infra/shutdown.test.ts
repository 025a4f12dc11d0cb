import { describe, expect, it } from '@jest/globals';
import { createLogger } from './logger';
import { shutdownSteps } from './shutdown';

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', { destination: { write: (line: string) => lines.push(JSON.parse(line)) } });
  return { logger, lines };
}

const never = () => new Promise<void>(() => undefined);

describe('shutdownSteps', () => {
  it('runs the steps in order, each to its end, while the deadline is ahead', async () => {
    const { logger, lines } = recordingLogger();
    const step = shutdownSteps(logger, Date.now() + 5_000);
    const done: string[] = [];
    await step('first', async () => {
      // A step that takes a while (the behaviour under test): the next must not start before it ends.
      await new Promise((resolve) => setTimeout(resolve, 20));
      done.push('first');
    });
    await step('second', async () => void done.push('second'));
    expect(done).toEqual(['first', 'second']);
    expect(lines).toEqual([]);
  });

  it('leaves a step behind at the deadline, names it in the log, and goes on', async () => {
    const { logger, lines } = recordingLogger();
    const started = Date.now();
    const step = shutdownSteps(logger, started + 100);
    await step('the stuck pool', never);
    let later = false;
    await step('a later step', async () => void (later = true));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(later).toBe(true);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        step: 'the stuck pool',
        msg: 'stopping: the stuck pool did not finish by the shutdown deadline; left behind',
      }),
    ]);
  });

  it('gives a step after the deadline no wait at all, yet still starts it', async () => {
    const { logger, lines } = recordingLogger();
    const step = shutdownSteps(logger, Date.now() - 1);
    let started = false;
    await step('late', () => {
      started = true;
      return never();
    });
    expect(started).toBe(true);
    expect(lines.map((line) => line.step)).toEqual(['late']);
  });

  it('passes a failing step on', async () => {
    const { logger } = recordingLogger();
    const step = shutdownSteps(logger, Date.now() + 5_000);
    await expect(step('broken', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});
