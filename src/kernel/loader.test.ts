import { describe, expect, it } from '@jest/globals';
import { Loader } from './loader';

describe('Loader', () => {
  it('answers loadMany with the values when every key loads', async () => {
    const loader = new Loader<string, string | null>(async (keys) => keys.map((key) => (key === 'b' ? null : key)));
    await expect(loader.loadMany(['a', 'b'])).resolves.toEqual(['a', null]);
  });

  it('rejects loadMany when the batch fails, instead of answering Error values', async () => {
    const outage = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const loader = new Loader<string, string>(async () => {
      throw outage;
    });
    await expect(loader.loadMany(['a', 'b'])).rejects.toBe(outage);
  });

  it('rejects loadMany when one key fails', async () => {
    const loader = new Loader<string, string>(async (keys) => keys.map((key) => (key === 'b' ? new Error('b') : key)));
    await expect(loader.loadMany(['a', 'b'])).rejects.toThrow('b');
  });
});
