import { performance } from 'node:perf_hooks';
import { ensurePlayground } from '../playground/build';
import { PLAYGROUND_BUNDLE } from '../playground/paths';

/**
 * Part of `npm run build`: bundles the GraphQL playground (GraphiQL) unless it is current. It
 * reports on stderr, so that `npm start` leaves stdout to the service's log (LOG_FORMAT).
 */
async function main(): Promise<void> {
  const started = performance.now();
  const built = await ensurePlayground(PLAYGROUND_BUNDLE, () =>
    process.stderr.write(
      `bundling the GraphQL playground into ${PLAYGROUND_BUNDLE} (its sources or dependencies changed)\n`,
    ),
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(
    built
      ? `bundled the GraphQL playground in ${seconds} s\n`
      : `the GraphQL playground bundle in ${PLAYGROUND_BUNDLE} is up to date\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? error}\n`);
  process.exit(1);
});
