import { localMinuteOfDay } from '../local-time';
import { fromMmol, type GlucoseUnits } from '../summary/units';

/** The AGP's periods: the CGM summary's 7, 14 and 30 days (its 1 day is too short for a profile). */
export const AGP_PERIODS = { '7d': 7, '14d': 14, '30d': 30 } as const;
export type AgpPeriod = keyof typeof AGP_PERIODS;
export const DEFAULT_AGP_PERIOD: AgpPeriod = '14d';

const BIN_MINUTES = 15;
const BIN_COUNT = 1440 / BIN_MINUTES;
/** A bin with fewer readings shows its count and no percentiles: five values make no band. */
const MIN_READINGS = 5;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** One 15-minute slot of the local day: its readings and their percentiles (null under MIN_READINGS). */
export interface AgpBin {
  /** The slot's first minute of the local day: 0, 15, …, 1425. */
  minute: number;
  count: number;
  p5: number | null;
  p25: number | null;
  p50: number | null;
  p75: number | null;
  p95: number | null;
}

/** An accepted reading with the offset of its local time (local-time.ts). */
export interface AgpReading {
  /** Epoch milliseconds. */
  time: number;
  mmol: number;
  /** Minutes east of UTC. */
  offsetMinutes: number;
}

/** The window of a period: the hours (from, to] the CGM summary's period covers. */
export interface AgpWindow {
  /** The start of the period's first hour (epoch ms). */
  from: number;
  /** The end of the newest hour (epoch ms). */
  to: number;
}

/**
 * The period's hours as the CGM summary counts them (summary/periods.ts `summarise`): the hour
 * buckets in (T − N days, T], T the hour of the newest counted reading; so readings from the
 * start of hour T − N days + 1 h to the end of hour T.
 */
export function agpWindow(lastData: number, period: AgpPeriod): AgpWindow {
  const newestHour = Math.floor(lastData / HOUR_MS) * HOUR_MS;
  return { from: newestHour - AGP_PERIODS[period] * DAY_MS + HOUR_MS, to: newestHour + HOUR_MS };
}

/**
 * The p-th percentile (0–100) of ascending `sorted` values by linear interpolation between
 * closest ranks (Hyndman–Fan type 7, numpy.percentile's default): h = (n − 1)·p/100, value
 * x⌊h⌋ + (h − ⌊h⌋)(x⌊h⌋₊₁ − x⌊h⌋).
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const h = ((sorted.length - 1) * p) / 100;
  const low = Math.floor(h);
  const lower = sorted[low]!;
  return low + 1 < sorted.length ? lower + (h - low) * (sorted[low + 1]! - lower) : lower;
}

/**
 * The 96 bins of the AGP: each reading goes to floor(local minute of day / 15); each bin's
 * count, and its 5th, 25th, 50th, 75th and 95th percentiles in `units` (not rounded).
 */
export function agpBins(readings: Iterable<AgpReading>, units: GlucoseUnits): AgpBin[] {
  const minutes: number[] = [];
  const values: number[] = [];
  for (const { time, mmol, offsetMinutes } of readings) {
    minutes.push(localMinuteOfDay(time, offsetMinutes));
    values.push(mmol);
  }
  return agpBinsByMinute(minutes, values, units);
}

/**
 * agpBins of readings given as columns: each one's minute of the local day and its value in
 * mmol/L. The values are laid out bin after bin in one array (a counting sort by bin), each bin
 * then sorted in place: no array per bin, no object per reading.
 */
export function agpBinsByMinute(
  minuteOfDay: ArrayLike<number>,
  mmol: ArrayLike<number>,
  units: GlucoseUnits,
): AgpBin[] {
  const starts = new Int32Array(BIN_COUNT + 1);
  for (let index = 0; index < mmol.length; index += 1) starts[Math.floor(minuteOfDay[index]! / BIN_MINUTES) + 1]! += 1;
  for (let bin = 0; bin < BIN_COUNT; bin += 1) starts[bin + 1]! += starts[bin]!;
  const next = starts.slice(0, BIN_COUNT);
  const values = new Float64Array(mmol.length);
  for (let index = 0; index < mmol.length; index += 1)
    values[next[Math.floor(minuteOfDay[index]! / BIN_MINUTES)]!++] = mmol[index]!;
  return Array.from({ length: BIN_COUNT }, (_, bin) => {
    const sorted = values.subarray(starts[bin], starts[bin + 1]).sort();
    const at = (p: number) => (sorted.length < MIN_READINGS ? null : fromMmol(percentile(sorted, p), units));
    return {
      minute: bin * BIN_MINUTES,
      count: sorted.length,
      p5: at(5),
      p25: at(25),
      p50: at(50),
      p75: at(75),
      p95: at(95),
    };
  });
}
