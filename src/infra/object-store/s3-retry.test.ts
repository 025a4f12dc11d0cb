import { describe, expect, it } from '@jest/globals';
import { backoffDelay, isReset, isThrottled, withRetries, type RetryKind, type RetryPolicy } from './s3-retry';

const slowDown = Object.assign(new Error('Please reduce your request rate.'), { code: 'SlowDown', httpstatus: 503 });
const unavailable = Object.assign(new Error('Service Unavailable'), { code: 'HTTP503', httpstatus: 503 });
const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
const hangUp = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
const brokenPipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
const denied = Object.assign(new Error('Access Denied'), { code: 'AccessDenied' });
const internal = Object.assign(new Error('We encountered an internal error'), {
  code: 'InternalError',
  httpstatus: 500,
});

/** A policy whose waits are recorded instead of slept, with a fixed jitter draw. */
function recording(maxRetries: number, random = 0.5) {
  const waits: number[] = [];
  const policy: RetryPolicy = {
    maxRetries,
    baseDelayMs: 100,
    maxDelayMs: 1_000,
    random: () => random,
    wait: async (ms) => void waits.push(ms),
  };
  return { policy, waits };
}

/** An operation failing with `errors` in turn, then answering "done"; counts its calls. */
function failing(...errors: Error[]) {
  let calls = 0;
  const operation = async () => {
    const error = errors[calls++];
    if (error) throw error;
    return 'done';
  };
  return { operation, calls: () => calls };
}

describe('classification', () => {
  it('knows throttling answers and cut connections, and nothing else', () => {
    expect([slowDown, unavailable, reset, hangUp, brokenPipe, refused, denied, internal].map(isThrottled)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect([slowDown, unavailable, reset, hangUp, brokenPipe, refused, denied, internal].map(isReset)).toEqual([
      false,
      false,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe('backoffDelay', () => {
  it('draws below a ceiling that doubles from the base up to the maximum (full jitter)', () => {
    const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect([0, 1, 2, 3, 4].map((retry) => backoffDelay(retry, { ...policy, random: () => 0.999 }))).toEqual([
      99, 199, 399, 799, 999,
    ]);
    expect([0, 1, 2, 3, 4].map((retry) => backoffDelay(retry, { ...policy, random: () => 0 }))).toEqual([
      0, 0, 0, 0, 0,
    ]);
  });
});

describe('withRetries', () => {
  it('retries a replayable call after throttling and resets, waiting a growing backoff', async () => {
    const { policy, waits } = recording(3);
    const call = failing(slowDown, hangUp, brokenPipe);
    await expect(withRetries(policy, 'replayable', call.operation)).resolves.toBe('done');
    expect(call.calls()).toBe(4);
    expect(waits).toEqual([50, 100, 200]);
  });

  it('gives up after 1 + maxRetries attempts with the last failure', async () => {
    const { policy, waits } = recording(2);
    const call = failing(slowDown, unavailable, reset, slowDown);
    await expect(withRetries(policy, 'replayable', call.operation)).rejects.toBe(reset);
    expect(call.calls()).toBe(3);
    expect(waits).toEqual([50, 100]);
  });

  it.each<[RetryKind, Error, number]>([
    ['refused', slowDown, 2],
    ['refused', reset, 1],
    ['replayable', refused, 1],
    ['replayable', denied, 1],
    ['replayable', internal, 1],
  ])('a %s call that fails with %p is attempted %p time(s)', async (kind, error, attempts) => {
    const { policy } = recording(1);
    const call = failing(error, error);
    const outcome = await withRetries(policy, kind, call.operation).catch((e: unknown) => e);
    expect(outcome).toBe(error);
    expect(call.calls()).toBe(attempts);
  });

  it('never retries when maxRetries is 0', async () => {
    const { policy, waits } = recording(0);
    const call = failing(slowDown);
    await expect(withRetries(policy, 'replayable', call.operation)).rejects.toBe(slowDown);
    expect(call.calls()).toBe(1);
    expect(waits).toEqual([]);
  });
});
