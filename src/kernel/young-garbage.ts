/** V8's collector, as `--expose-gc` gives it (`npm start` passes the flag). */
type Collect = (options: { type: 'minor'; execution: 'async' }) => unknown;

/** Bytes streamed in request bodies between two collections of the young generation. */
export const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

let streamed = 0;

/**
 * Counts the bytes of a streamed request body (an upload), and every COLLECT_EVERY_BYTES of them,
 * across all requests, asks V8 to collect its young generation in the background. A socket's
 * chunks are small objects on V8's heap holding their bytes outside it, so a 100 MiB upload
 * allocates too little of the heap to start a collection, and the 8 MiB semi-spaces `npm start`
 * sets (for the many short-lived objects of a page of patients) would keep its chunks' memory
 * until V8's own limit on outside memory: +40 MiB of memory during one upload, where a collection
 * every 8 MiB keeps it within 32. Without `--expose-gc` (tests, tools) nothing is asked.
 *
 * `gc`'s options are V8's; `young-garbage.test.ts` runs them on this Node.js so that an upgrade
 * dropping them fails there.
 */
export function noteStreamedBytes(bytes: number): void {
  streamed += bytes;
  if (streamed < COLLECT_EVERY_BYTES) return;
  streamed = 0;
  const collect = (globalThis as { gc?: Collect }).gc;
  if (collect) void collect({ type: 'minor', execution: 'async' });
}
