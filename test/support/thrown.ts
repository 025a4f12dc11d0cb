/** What `run` throws, to match its code, message and details; fails when it throws nothing. */
export function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected it to throw');
}
