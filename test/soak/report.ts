import { printTable, type Measurement } from '../bench/harness';
import { summarise, type Outcome, type Tally } from './outcomes';
import type { Check } from './verify';

const byKind = (counts: ReturnType<typeof summarise>) =>
  `down ${counts.down}, 503 ${counts.unavailable}, failures ${counts.failure}`;

/** One line of progress: the interval's requests, errors by kind and latencies, and the service's RSS. */
export function progressLine(tally: Tally, since: number, rssMiB: number | undefined, liveUpdates: number): string {
  const interval = summarise(tally.outcomes.filter((outcome) => outcome.end >= since));
  const seconds = Math.round(tally.now() / 1000);
  return (
    `[${String(seconds).padStart(4)} s] ${tally.outcomes.length} requests (+${interval.requests}); ` +
    `errors: ${byKind(interval)}; p50 ${interval.p50.toFixed(1)} ms, p99 ${interval.p99.toFixed(1)} ms; ` +
    `RSS ${rssMiB === undefined ? 'down' : `${rssMiB.toFixed(0)} MiB`}; live updates ${liveUpdates}`
  );
}

/** The summary table: a row per operation and one for all, as the bench prints its rows. */
export function printSummary(tally: Tally, durationMs: number): void {
  const operations = [...new Set(tally.outcomes.map((outcome) => outcome.operation))].sort();
  const row = (name: string, outcomes: Outcome[]): Measurement => {
    const counts = summarise(outcomes);
    return {
      name,
      requestsPerSecond: counts.requests / (durationMs / 1000),
      p50: counts.p50,
      p99: counts.p99,
      errors: counts.requests - counts.ok,
      notes: byKind(counts),
    };
  };
  printTable([
    ...operations.map((name) =>
      row(
        name,
        tally.outcomes.filter((outcome) => outcome.operation === name),
      ),
    ),
    row('all', tally.outcomes),
  ]);
  for (const fault of tally.faults) {
    // Requests the fault caught midway: a graceful stop answers them, a cut database makes them 503.
    const caught = summarise(
      tally.outcomes.filter((outcome) => outcome.start < fault.start && outcome.end > fault.start),
    );
    console.log(
      `${fault.label}: from ${(fault.start / 1000).toFixed(1)} s to ${(fault.end / 1000).toFixed(1)} s` +
        `${fault.note ? ` (${fault.note})` : ''}; ${caught.requests} requests in flight when it began: ` +
        `${caught.ok} answered, ${byKind(caught)}`,
    );
  }
}

/** The errors that fall outside what an outage explains, grouped by operation and detail. */
export function printUnexpected(unexpected: readonly Outcome[]): void {
  const groups = new Map<string, Outcome[]>();
  for (const outcome of unexpected) {
    const key = `${outcome.operation} (${outcome.kind}): ${outcome.detail ?? ''}`.slice(0, 400);
    groups.set(key, [...(groups.get(key) ?? []), outcome]);
  }
  for (const [key, outcomes] of groups)
    console.log(`  ${outcomes.length} × ${key} (first at ${(outcomes[0]!.start / 1000).toFixed(1)} s)`);
}

export function printChecks(checks: readonly Check[]): void {
  for (const check of checks) console.log(`${check.pass ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`);
}
