import type { Agp } from '../../src/domains/glucose/agp/agp.service';

/** A median in mg/dL along the day: a wave with its peak after noon. */
export const sampleMedian = (bin: number) => 140 + 50 * Math.sin((2 * Math.PI * (bin - 30)) / 96);

/**
 * An AGP in mg/dL with known percentiles around `sampleMedian` (p5 −55, p25 −25, p75 +30,
 * p95 +90) and a gap: bins 40–47 (10:00–12:00) hold 3 readings each, too few for percentiles.
 */
export function sampleAgp(): Agp {
  return {
    period: '14d',
    units: 'MG_DL',
    from: new Date('2026-01-01T11:00:00Z'),
    to: new Date('2026-01-15T11:00:00Z'),
    readings: 88 * 14 + 8 * 3,
    bins: Array.from({ length: 96 }, (_, bin) => {
      const median = sampleMedian(bin);
      const sparse = bin >= 40 && bin < 48;
      const at = (delta: number) => (sparse ? null : median + delta);
      return {
        minute: bin * 15,
        count: sparse ? 3 : 14,
        p5: at(-55),
        p25: at(-25),
        p50: at(0),
        p75: at(30),
        p95: at(90),
      };
    }),
  };
}
