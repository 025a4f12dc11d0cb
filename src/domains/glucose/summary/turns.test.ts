import { describe, expect, it } from '@jest/globals';
import { bucketsOf, type Reading } from './buckets';
import { takeTurn } from './turns';

const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 1);

/** `perHour` readings five minutes apart in each of `hours` hours. */
const readings = (hours: number, perHour: number): Reading[] =>
  Array.from({ length: hours * perHour }, (_, index) => ({
    time: START + Math.floor(index / perHour) * HOUR + (index % perHour) * 5 * 60_000,
    mmol: 5 + (index % 7),
    minutes: 5,
  }));

async function* inBatches(all: Reading[], size: number) {
  for (let start = 0; start < all.length; start += size) yield all.slice(start, start + size);
}

describe('one turn of a summary rebuild', () => {
  it('stops after the hour the limit falls in, and says where the next turn starts', async () => {
    const turn = await takeTurn(inBatches(readings(10, 12), 7), 30);
    // 30 readings end inside the third hour: its other 6 come too, and the fourth hour is next.
    expect(turn.readings).toHaveLength(36);
    expect(turn.until).toBe(START + 3 * HOUR);
  });

  it('takes everything when the source ends within the limit', async () => {
    const turn = await takeTurn(inBatches(readings(3, 12), 1000), 100);
    expect(turn).toEqual({ readings: readings(3, 12), until: null });
  });

  it('takes a whole hour even when it alone holds more than the limit', async () => {
    const turn = await takeTurn(inBatches(readings(2, 12), 5), 4);
    expect(turn.readings).toHaveLength(12);
    expect(turn.until).toBe(START + HOUR);
  });

  it('gives, turn after turn, the buckets of a single pass', async () => {
    const all = readings(48, 12);
    const buckets = [];
    let rest = all;
    for (;;) {
      const turn = await takeTurn(inBatches(rest, 50), 100);
      buckets.push(...bucketsOf(turn.readings, 'cgm'));
      if (turn.until === null) break;
      rest = rest.filter((reading) => reading.time >= turn.until!);
    }
    expect(buckets).toEqual(bucketsOf(all, 'cgm'));
  });

  it('stops reading the source where the turn ends', async () => {
    let read = 0;
    async function* counted() {
      for await (const batch of inBatches(readings(100, 12), 12)) {
        read += batch.length;
        yield batch;
      }
    }
    await takeTurn(counted(), 24);
    expect(read).toBe(36);
  });
});
