import { describe, expect, it } from '@jest/globals';
import { PassThrough, Readable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { InFlightLimit } from './in-flight-limit';

const limit = (most: number) =>
  new InFlightLimit(most, { message: (n) => `${n} downloads already running`, retryAfterSeconds: 7 });

/** Whether `key` may take one more place now (taken and given back at once). */
function hasRoom(limits: InFlightLimit, key: string): boolean {
  try {
    limits.take(key)();
    return true;
  } catch {
    return false;
  }
}

describe('in-flight limit', () => {
  it('refuses one more than the limit per key with its message and the seconds to wait', () => {
    const limits = limit(2);
    const releases = [limits.take('a'), limits.take('a')];
    expect(() => limits.take('a')).toThrow(
      expect.objectContaining({
        code: 'RATE_LIMITED',
        message: '2 downloads already running',
        details: { retryAfter: 7 },
      }),
    );
    expect(hasRoom(limits, 'b')).toBe(true);
    releases[0]!();
    releases[0]!();
    expect(hasRoom(limits, 'a')).toBe(true);
    limits.take('a');
    expect(hasRoom(limits, 'a')).toBe(false);
  });

  it('holds a stream’s place until the stream ends', async () => {
    const limits = limit(1);
    const stream = await limits.holdStream('a', () => Readable.from(['x', 'y']));
    expect(hasRoom(limits, 'a')).toBe(false);
    for await (const _chunk of stream);
    await tick();
    expect(hasRoom(limits, 'a')).toBe(true);
  });

  it('gives the place back when the stream fails', async () => {
    const limits = limit(1);
    const stream = await limits.holdStream('a', () => new PassThrough());
    stream.on('error', () => {});
    stream.destroy(new Error('the database went away'));
    await tick();
    expect(hasRoom(limits, 'a')).toBe(true);
  });

  it('gives the place back when the stream is closed unread (its reader gone)', async () => {
    const limits = limit(1);
    const stream = await limits.holdStream('a', () => new PassThrough());
    stream.write('waiting for a reader');
    await tick();
    expect(hasRoom(limits, 'a')).toBe(false);
    stream.destroy();
    await tick();
    expect(hasRoom(limits, 'a')).toBe(true);
  });

  it('gives the place back when opening fails, and after work that settles either way', async () => {
    const limits = limit(1);
    await expect(limits.holdStream('a', () => Promise.reject(new Error('no access')))).rejects.toThrow('no access');
    await expect(limits.hold('a', () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(await limits.hold('a', async () => 'done')).toBe('done');
    expect(hasRoom(limits, 'a')).toBe(true);
  });
});
