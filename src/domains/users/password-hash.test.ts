import fs from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { registry } from '../../infra/metrics';
import {
  hashPassword,
  hashSlots,
  measureChecksPerSecond,
  setPasswordHashCost,
  verifyAgainstDecoy,
  verifyPassword,
} from './password-hash';

const hashesSoFar = async () => (await registry.getSingleMetric('islet_password_hashes_total')!.get()).values[0].value;

describe('password hashes', () => {
  it('are salted argon2id in PHC format and verify only the right password', async () => {
    const first = await hashPassword('correct-horse');
    const second = await hashPassword('correct-horse');
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(first).not.toBe(second);
    expect(await verifyPassword('correct-horse', first)).toBe(true);
    expect(await verifyPassword('correct-horsE', first)).toBe(false);
    expect(await verifyPassword('correct-horse', 'not-a-hash')).toBe(false);
  });

  it('are made at the cost set, and those made at another cost still verify', async () => {
    const baseline = await hashPassword('correct-horse');
    setPasswordHashCost({ memoryKib: 1024, passes: 1 });
    try {
      const cheaper = await hashPassword('correct-horse');
      expect(cheaper).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
      expect(await verifyPassword('correct-horse', cheaper)).toBe(true);
      expect(await verifyPassword('correct-horse', baseline)).toBe(true);
      expect(await verifyPassword('correct-horsE', baseline)).toBe(false);
      expect(await verifyAgainstDecoy('correct-horse')).toBe(false);
    } finally {
      setPasswordHashCost({ memoryKib: 19456, passes: 2 });
    }
    expect(await hashPassword('correct-horse')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('are counted at /metrics, each one computed', async () => {
    const stored = await hashPassword('correct-horse');
    const before = await hashesSoFar();
    await verifyPassword('correct-horse', stored);
    await verifyPassword('correct-horse', 'not-a-hash');
    expect((await hashesSoFar()) - before).toBe(1);
  });
});

describe('hashing beside file reads', () => {
  it('keeps two threads of the pool and half the cores free of hashing', () => {
    expect(hashSlots(4, 2)).toBe(1);
    expect(hashSlots(4, 8)).toBe(2);
    expect(hashSlots(16, 8)).toBe(4);
    expect(hashSlots(64, 8)).toBe(4);
    expect(hashSlots(2, 32)).toBe(1);
  });

  it('lets a file read through while a flood of hashes waits, instead of queueing it behind them', async () => {
    const stored = await hashPassword('correct-horse');
    let finished = 0;
    const flood = Array.from({ length: 12 }, () =>
      verifyPassword('wrong-horse', stored).then(() => {
        finished += 1;
      }),
    );
    await fs.readFile(__filename);
    // Only hashes that were already running may finish first; a queue in the threadpool would
    // make the read wait for every hash ahead of it (libuv serves its queue in order).
    expect(finished).toBeLessThanOrEqual(hashSlots(4));
    await Promise.all(flood);
  });

  it('measures how many checks per second its slots can hash', async () => {
    const rate = await measureChecksPerSecond(1);
    expect(rate).toBeGreaterThan(0);
    expect(Number.isFinite(rate)).toBe(true);
  });
});
