import { performance } from 'node:perf_hooks';
import { ensurePlayground } from '../playground/build';
import { PLAYGROUND_BUNDLE } from '../playground/paths';

/** Part of `npm run build`: bundles the GraphQL playground (GraphiQL) unless it is current. */
async function main(): Promise<void> {
  const started = performance.now();
  const built = await ensurePlayground();
  if (built) {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(`bundled the GraphQL playground into ${PLAYGROUND_BUNDLE} in ${seconds} s\n`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? error}\n`);
  process.exit(1);
});
