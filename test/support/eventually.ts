/**
 * Polls `check` until it holds; fails naming `what` after `timeoutMs`. The first checks come
 * quickly (10 ms apart, doubling up to 200 ms), so a condition that holds soon is seen soon and
 * one that takes long costs the database a check every 200 ms at most.
 */
export async function eventually(check: () => Promise<boolean>, what = 'the condition holds', timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (let pauseMs = 10; !(await check()); pauseMs = Math.min(200, pauseMs * 2)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}
