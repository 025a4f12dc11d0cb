import { localOffset, type LocalTimeHints } from '../local-time';
import { acceptedReadings, bucketsOf } from '../summary/buckets';
import { MG_DL_PER_MMOL_L, type GlucoseUnits } from '../summary/units';
import { agpBins, agpWindow, percentile, type AgpBin } from './agp';

interface TraceReading {
  time: number;
  mmol: number;
  minutes: number;
  hints: LocalTimeHints;
}

const at = (iso: string) => Date.parse(iso);
const DAY_MS = 86_400_000;

/** The AGP of a trace as the service computes it: the buckets' acceptance, each reading's offset, the bins. */
function profile(trace: readonly TraceReading[], units: GlucoseUnits): AgpBin[] {
  const sorted = [...trace].sort((a, b) => a.time - b.time);
  return agpBins(
    acceptedReadings(sorted, 'cgm').map((reading) => ({
      time: reading.time,
      mmol: reading.mmol,
      offsetMinutes: localOffset(reading.time, reading.hints).minutes,
    })),
    units,
  );
}

/** Checks a bin's count and percentiles (given in mmol/L, hand-computed) in both units, to 1e-9. */
function expectBin(trace: readonly TraceReading[], minute: number, count: number, mmol: number[] | null): void {
  for (const units of ['MMOL_L', 'MG_DL'] as const) {
    const bin = profile(trace, units).find((candidate) => candidate.minute === minute)!;
    expect(bin.count).toBe(count);
    const values = [bin.p5, bin.p25, bin.p50, bin.p75, bin.p95];
    if (mmol === null) expect(values).toEqual([null, null, null, null, null]);
    else
      mmol.forEach((expected, index) =>
        expect(Math.abs(values[index]! - (units === 'MG_DL' ? expected * MG_DL_PER_MMOL_L : expected))).toBeLessThan(
          1e-9,
        ),
      );
  }
}

/** Which bins hold readings, as minute → count. */
const counts = (trace: readonly TraceReading[]) =>
  Object.fromEntries(
    profile(trace, 'MMOL_L')
      .filter((bin) => bin.count)
      .map((bin) => [bin.minute, bin.count]),
  );

describe('percentile (Hyndman–Fan type 7)', () => {
  it('interpolates between closest ranks as numpy.percentile does', () => {
    expect(percentile([1, 2, 3, 4, 5], 25)).toBe(2);
    expect(percentile([1, 2, 3, 4, 5], 5)).toBeCloseTo(1.2, 12);
    expect(percentile([1, 2, 3, 4, 5], 95)).toBeCloseTo(4.8, 12);
    const six = [10, 20, 30, 40, 50, 60];
    expect([5, 25, 50, 75, 95].map((p) => percentile(six, p))).toEqual([12.5, 22.5, 35, 47.5, 57.5]);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([3, 9], 100)).toBe(9);
    expect(percentile([3, 9], 0)).toBe(3);
  });
});

describe('agpWindow', () => {
  it('covers the hours of the summary period: from the hour N days before the newest one, exclusive', () => {
    const window = agpWindow(at('2024-01-15T10:37:00Z'), '14d');
    expect(new Date(window.from).toISOString()).toBe('2024-01-01T11:00:00.000Z');
    expect(new Date(window.to).toISOString()).toBe('2024-01-15T11:00:00.000Z');
    expect(agpWindow(at('2024-01-15T10:00:00Z'), '7d').from).toBe(at('2024-01-08T11:00:00Z'));
  });
});

describe('agpBins', () => {
  const reading = (time: number, mmol: number, hints: LocalTimeHints = {}, minutes = 5): TraceReading => ({
    time,
    mmol,
    minutes,
    hints,
  });

  it('bins by local time in two time zones (dataset zones), with hand-computed percentiles', () => {
    const kolkata = [5, 6, 7, 8, 9].map((mmol, day) =>
      reading(at('2024-01-01T12:00:00Z') + day * DAY_MS, mmol, { datasetZone: 'Asia/Kolkata' }),
    );
    const newYork = [10, 4, 6, 8, 12, 14].map((mmol, day) =>
      reading(at('2024-01-10T12:07:00Z') + day * DAY_MS, mmol, { datasetZone: 'America/New_York' }),
    );
    const trace = [...kolkata, ...newYork];
    // 12:00 UTC is 17:30 in Kolkata (bin 70, minute 1050) and 07:07 in New York in January (bin 28, minute 420).
    expect(counts(trace)).toEqual({ 1050: 5, 420: 6 });
    expectBin(trace, 1050, 5, [5.2, 6, 7, 8, 8.8]);
    // Sorted 4, 6, 8, 10, 12, 14: h = 0.25, 1.25, 2.5, 3.75, 4.75.
    expectBin(trace, 420, 6, [4.5, 6.5, 9, 11.5, 13.5]);
  });

  it('follows a DST change inside the period (reading by reading)', () => {
    // New York moves from UTC−5 to UTC−4 on 2024-03-10 at 07:00 UTC: 14:00 UTC is 09:00, then 10:00.
    const trace = Array.from({ length: 14 }, (_, day) =>
      reading(at('2024-03-03T14:00:00Z') + day * DAY_MS, 4 + day, { callerZone: 'America/New_York' }),
    );
    expect(counts(trace)).toEqual({ 540: 7, 600: 7 });
    expectBin(trace, 540, 7, [4.3, 5.5, 7, 8.5, 9.7]);
    expectBin(trace, 600, 7, [11.3, 12.5, 14, 15.5, 16.7]);
  });

  it('prefers the record’s offset, then its zone, to the dataset’s, the caller’s and the clinic’s', () => {
    const time = at('2024-06-01T00:00:00Z');
    const trace = [
      reading(time, 5, { recordOffset: 60, recordZone: 'Asia/Tokyo', datasetZone: 'Asia/Kolkata' }),
      reading(time + DAY_MS, 5, { recordZone: 'Asia/Tokyo', datasetZone: 'Asia/Kolkata' }),
      reading(time + 2 * DAY_MS, 5, { clinicZone: 'Asia/Kathmandu' }),
      reading(time + 3 * DAY_MS, 5, {}),
    ];
    // 01:00, 09:00 (Tokyo), 05:45 (Kathmandu, UTC+5:45: minute 345 → bin at 345), 00:00 (UTC).
    expect(counts(trace)).toEqual({ 60: 1, 540: 1, 345: 1, 0: 1 });
  });

  it('gives a bin of fewer than 5 readings its count and null percentiles', () => {
    const trace = [6, 7, 8, 9].map((mmol, day) => reading(at('2024-01-01T08:20:00Z') + day * DAY_MS, mmol));
    expectBin(trace, 495, 4, null);
    expectBin([...trace, reading(at('2024-01-05T08:29:59Z'), 5)], 495, 5, [5.2, 6, 7, 8, 8.8]);
    expect(profile([], 'MG_DL')).toHaveLength(96);
    expect(profile([], 'MG_DL').every((bin) => bin.count === 0 && bin.p50 === null)).toBe(true);
  });

  it('counts Libre readings every 15 minutes, one per bin, and skips one inside its 15-minute blackout', () => {
    const libre = Array.from({ length: 5 * 96 }, (_, index) =>
      reading(at('2024-02-01T00:00:00Z') + index * 15 * 60_000, 4 + (index % 96) / 10 + Math.floor(index / 96), {}, 15),
    );
    // A reading 10 minutes after a Libre reading stands for the same 15 minutes: skipped.
    const repeated = reading(at('2024-02-01T00:10:00Z'), 20, {}, 15);
    const trace = [...libre, repeated];
    const bins = profile(trace, 'MMOL_L');
    expect(bins.every((bin) => bin.count === 5)).toBe(true);
    // Bin 2 (00:30): 4.2, 5.2, 6.2, 7.2, 8.2.
    expectBin(trace, 30, 5, [4.4, 5.2, 6.2, 7.2, 8]);
  });

  it('skips readings closer than the previous accepted one’s minutes (less 10 s), as the summary does', () => {
    const start = at('2024-01-01T00:00:00Z');
    const trace = [0, 1, 2, 3, 4].flatMap((day) => [
      reading(start + day * DAY_MS, 5 + day),
      reading(start + day * DAY_MS + 120_000, 20),
      reading(start + day * DAY_MS + 291_000, 10 + day),
    ]);
    // 00:02 is inside the 00:00 reading's 5 minutes; 00:04:51 is 291 s after it (≥ 290 s): counted.
    expect(counts(trace)).toEqual({ 0: 10 });
    expectBin(trace, 0, 10, [5.45, 7.25, 9.5, 11.75, 13.55]);
  });

  it('takes exactly the readings the summary’s buckets count, on a ragged trace', () => {
    // Pseudo-random gaps of 0 to 9 minutes, 5- and 15-minute readings, bursts that hit the cap.
    let time = at('2024-01-01T00:00:00Z');
    const trace = Array.from({ length: 5000 }, (_, index) => {
      time += ((index * 7919) % 10) * 60_000 + (index % 97 < 3 ? 0 : 1000);
      return { time, mmol: 4 + (index % 13), minutes: index % 11 === 0 ? 15 : index % 17 === 0 ? 0 : 5 };
    });
    const counted = bucketsOf(trace, 'cgm').reduce((sum, bucket) => sum + bucket.ranges.total.records, 0);
    expect(acceptedReadings(trace, 'cgm')).toHaveLength(counted);
    expect(counted).toBeLessThan(trace.length);
  });

  it('accepts at most 61 readings in an hour (the summary’s hourly cap)', () => {
    const trace = Array.from({ length: 70 }, (_, index) =>
      reading(at('2024-01-01T03:00:00Z') + index * 30_000, 6, {}, 0),
    );
    expect(counts(trace)).toEqual({ 180: 30, 195: 30, 210: 1 });
  });
});
