/** Polls `check` until it holds; fails naming `what` after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, what = 'the condition holds', timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
