import type { Check } from './verify';

/** One reading of the service's VmRSS. */
export interface ResidentSample {
  /** Soak milliseconds. */
  at: number;
  mib: number;
}

const mean = (samples: readonly ResidentSample[]) =>
  samples.reduce((sum, sample) => sum + sample.mib, 0) / Math.max(1, samples.length);

/** Growth allowed between the first quarter after warm-up and the second half. */
const FLAT = 0.2;

/**
 * RSS flat after warm-up: the mean of the second half of the run against the mean of its first
 * quarter after warm-up. Samples within `warmUpMs` of any start of the service are left out, so
 * a freshly restarted process does not count as memory given back, nor its warm-up as growth.
 */
export function residentCheck(
  samples: readonly ResidentSample[],
  starts: readonly number[],
  durationMs: number,
  warmUpMs: number,
): Check {
  const warm = samples.filter((sample) => !starts.some((start) => sample.at >= start && sample.at < start + warmUpMs));
  const firstQuarterEnd = warmUpMs + (durationMs - warmUpMs) / 4;
  const early = warm.filter((sample) => sample.at < firstQuarterEnd);
  const late = warm.filter((sample) => sample.at >= durationMs / 2);
  if (!early.length || !late.length)
    return { name: 'RSS flat after warm-up', pass: false, detail: 'too few samples after warm-up' };
  const growth = mean(late) / mean(early) - 1;
  return {
    name: 'RSS flat after warm-up',
    pass: growth < FLAT,
    detail:
      `mean ${mean(early).toFixed(0)} MiB in the first quarter after warm-up, ${mean(late).toFixed(0)} MiB in the ` +
      `second half (${(growth * 100).toFixed(1)}%; limit ${FLAT * 100}%), peak ${Math.max(...samples.map((s) => s.mib)).toFixed(0)} MiB`,
  };
}

/** The most the service may hold at any moment of the run (issue 33: 530–590 MiB before). */
export const PEAK_LIMIT_MIB = 300;

/** Peak RSS under `limitMiB` over every sample of the run (one a second), warm-up and restarts included. */
export function peakCheck(samples: readonly ResidentSample[], limitMiB = PEAK_LIMIT_MIB): Check {
  const name = `peak RSS under ${limitMiB} MiB`;
  if (!samples.length) return { name, pass: false, detail: 'no samples' };
  const peak = Math.max(...samples.map((sample) => sample.mib));
  return {
    name,
    pass: peak < limitMiB,
    detail: `peak ${peak.toFixed(0)} MiB, mean ${mean(samples).toFixed(0)} MiB over ${samples.length} samples`,
  };
}
