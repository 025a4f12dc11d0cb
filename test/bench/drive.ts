import { performance } from 'node:perf_hooks';
import type { Measurement } from './harness';

/** Calls that were made in a timed loop, with their outcome. */
export interface Run {
  ok: number;
  errors: number;
  seconds: number;
  durations: number[];
  firstError?: unknown;
}

export type Plan = { seconds: number; concurrency: number } | { times: number };

/** Runs `once` from `concurrency` loops, for `seconds` or `times` calls in all; failures are counted. */
export async function drive(plan: Plan, once: () => Promise<unknown>): Promise<Run> {
  const run: Run = { ok: 0, errors: 0, seconds: 0, durations: [] };
  const deadline = 'seconds' in plan ? performance.now() + plan.seconds * 1000 : Infinity;
  let remaining = 'times' in plan ? plan.times : Infinity;
  const loop = async () => {
    while (performance.now() < deadline && remaining-- > 0) {
      const start = performance.now();
      try {
        await once();
        run.durations.push(performance.now() - start);
        run.ok += 1;
      } catch (error) {
        run.errors += 1;
        run.firstError ??= error;
      }
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: 'concurrency' in plan ? plan.concurrency : 1 }, loop));
  run.seconds = (performance.now() - start) / 1000;
  return run;
}

/**
 * Runs the contenders in turns: `rounds` rounds, each giving every contender its share of the
 * plan, the first place passing on each round. A disk that flushes or a cache that warms midway
 * then weighs on all of them alike instead of on whichever ran last. One Run per contender.
 */
export async function driveInTurns(plan: Plan, rounds: number, contenders: (() => Promise<unknown>)[]): Promise<Run[]> {
  const share: Plan =
    'seconds' in plan
      ? { ...plan, seconds: plan.seconds / rounds }
      : { times: Math.max(1, Math.round(plan.times / rounds)) };
  const runs = contenders.map((): Run => ({ ok: 0, errors: 0, seconds: 0, durations: [] }));
  for (let round = 0; round < rounds; round += 1) {
    for (let turn = 0; turn < contenders.length; turn += 1) {
      const index = (round + turn) % contenders.length;
      const part = await drive(share, contenders[index]);
      const run = runs[index];
      run.ok += part.ok;
      run.errors += part.errors;
      run.seconds += part.seconds;
      run.durations.push(...part.durations);
      run.firstError ??= part.firstError;
    }
  }
  return runs;
}

export function percentile(sorted: number[], fraction: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

const MIB = 1024 * 1024;

/** A table row from a run that moved `bytes` per call. */
export function measurement(name: string, run: Run, bytes: number, floor?: string, notes?: string): Measurement {
  if (run.firstError) console.error(`${name}: ${run.errors} errors, the first: ${String(run.firstError)}`);
  const sorted = [...run.durations].sort((a, b) => a - b);
  return {
    name,
    requestsPerSecond: run.ok / run.seconds,
    mibPerSecond: (run.ok * bytes) / MIB / run.seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    errors: run.errors,
    floor,
    notes,
  };
}
