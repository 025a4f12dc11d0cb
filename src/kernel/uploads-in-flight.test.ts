import { describe, expect, it } from '@jest/globals';
import { UploadsInFlight } from './uploads-in-flight';

/** An upload that runs until `finish` is called. */
function pending() {
  let finish!: () => void;
  const ended = new Promise<string>((resolve) => (finish = () => resolve('stored')));
  return { upload: () => ended, finish };
}

describe('uploads in flight', () => {
  it('holds at most the limit of one account at once, refusing more with the seconds to wait', async () => {
    const uploads = new UploadsInFlight(2);
    const [first, second] = [pending(), pending()];
    const running = [uploads.hold('a', first.upload), uploads.hold('a', second.upload)];
    await expect(uploads.hold('a', async () => 'third')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringContaining('2 uploads in progress'),
      details: { retryAfter: 5 },
    });
    expect(await uploads.hold('b', async () => 'another account')).toBe('another account');
    first.finish();
    expect(await running[0]).toBe('stored');
    expect(await uploads.hold('a', async () => 'after one ended')).toBe('after one ended');
    second.finish();
    await running[1];
  });

  it('gives the place back when an upload fails', async () => {
    const uploads = new UploadsInFlight(1);
    await expect(uploads.hold('a', async () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(await uploads.hold('a', async () => 'next')).toBe('next');
  });
});
