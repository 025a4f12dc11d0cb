import { describe, expect, it } from '@jest/globals';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { COLLECT_EVERY_BYTES, noteStreamedBytes } from './young-garbage';

/**
 * V8's own collector, as `--expose-gc` would give it: contexts made while the flag is set have it.
 * The flag goes off again at once, so that test files the worker runs next get no `gc`.
 */
function realCollector(): (options: unknown) => unknown {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as (options: unknown) => unknown;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

describe('collecting the young generation under streamed bodies', () => {
  it('asks V8 once per COLLECT_EVERY_BYTES streamed, in the background, with options this V8 honours', async () => {
    const collector = realCollector();
    const asked: unknown[] = [];
    const answers: unknown[] = [];
    const global = globalThis as { gc?: (options: unknown) => unknown };
    global.gc = (options) => {
      asked.push(options);
      const answer = collector(options);
      answers.push(answer);
      return answer;
    };
    try {
      noteStreamedBytes(COLLECT_EVERY_BYTES - 1);
      expect(asked).toEqual([]);
      noteStreamedBytes(1);
      expect(asked).toEqual([{ type: 'minor', execution: 'async' }]);
      // A V8 that ignored the options would collect everything at once and answer nothing; this
      // answer is a promise of the collector's own context.
      expect(typeof (answers[0] as { then?: unknown }).then).toBe('function');
      await answers[0];
      noteStreamedBytes(COLLECT_EVERY_BYTES / 2);
      expect(asked).toHaveLength(1);
    } finally {
      delete global.gc;
    }
  });

  it('asks nothing of a process started without --expose-gc', () => {
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    expect(() => noteStreamedBytes(2 * COLLECT_EVERY_BYTES)).not.toThrow();
  });
});
