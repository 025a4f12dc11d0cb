import { hourOf, type Reading } from './buckets';

/** The readings one turn of a rebuild takes, and the hour the next turn starts at (null: none needed). */
export interface Turn {
  readings: Reading[];
  until: number | null;
}

/**
 * Takes readings in time order until `limit` of them are taken, then the rest of the hour the
 * limit fell in: a bucket is built from all the readings of its hour or from none, so a rebuild
 * split into turns gives the buckets one pass would. Stops reading the source there.
 */
export async function takeTurn(batches: AsyncIterable<readonly Reading[]>, limit: number): Promise<Turn> {
  const readings: Reading[] = [];
  for await (const batch of batches)
    for (const reading of batch) {
      const hour = hourOf(reading.time);
      if (readings.length >= limit && hour !== hourOf(readings.at(-1)!.time)) return { readings, until: hour };
      readings.push(reading);
    }
  return { readings, until: null };
}
