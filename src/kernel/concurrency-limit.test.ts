import { describe, expect, it } from '@jest/globals';
import { ConcurrencyLimit } from './concurrency-limit';

/** A task that runs until released, recording how many ran at once. */
function gatedTasks(limit: ConcurrencyLimit) {
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const releases: (() => void)[] = [];
  const task = (id: number) =>
    limit.run(async () => {
      running += 1;
      most = Math.max(most, running);
      started.push(id);
      await new Promise<void>((resolve) => releases.push(resolve));
      running -= 1;
      return id;
    });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { task, started, releases, settle, most: () => most };
}

describe('ConcurrencyLimit', () => {
  it('runs at most its limit at once, the others in the order they came', async () => {
    const limit = new ConcurrencyLimit(2);
    const gate = gatedTasks(limit);
    const results = [1, 2, 3, 4, 5].map(gate.task);
    await gate.settle();
    expect(gate.started).toEqual([1, 2]);
    while (gate.releases.length) {
      gate.releases.shift()!();
      await gate.settle();
    }
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4, 5]);
    expect(gate.started).toEqual([1, 2, 3, 4, 5]);
    expect(gate.most()).toBe(2);
  });

  it('frees its place when a task fails', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limit.run(async () => 'next')).resolves.toBe('next');
  });

  it('starts waiting tasks at once when its limit is raised', async () => {
    const limit = new ConcurrencyLimit(1);
    const gate = gatedTasks(limit);
    [1, 2, 3].forEach(gate.task);
    await gate.settle();
    expect(gate.started).toEqual([1]);
    limit.resize(3);
    await gate.settle();
    expect(gate.started).toEqual([1, 2, 3]);
    gate.releases.forEach((release) => release());
  });
});
