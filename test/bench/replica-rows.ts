import { load, type LoadOptions, type Measurement } from './harness';
import type { BenchEnvironment } from './setup';

/**
 * `measured` again, against the run's second service (`env.replica`: the same database, reading
 * from a streaming replica), when the run has one (the `replicas` scenario); else nothing.
 */
export async function alsoWithReplica(
  env: Pick<BenchEnvironment, 'app' | 'replica'>,
  measured: Measurement,
  options: LoadOptions,
): Promise<Measurement[]> {
  if (!env.replica) return [];
  const url = options.url.replace(env.app.url, env.replica.url);
  const row = await load(`${measured.name}, one replica`, { ...options, url }, measured.floor);
  row.notes = measured.notes;
  return [row];
}
