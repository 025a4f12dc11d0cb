import { RANGES, rangesOf, type RangeName } from './ranges';

export type SummaryKind = 'cgm' | 'bgm';

/** One accepted reading as a summary sees it. */
export interface Reading {
  /** Epoch milliseconds. */
  time: number;
  mmol: number;
  /** Minutes credited to the reading (CGM; 0 for BGM). */
  minutes: number;
}

export interface RangeCount {
  records: number;
  minutes: number;
}

/**
 * The moments of the readings behind a bucket or period: the weight (minutes for CGM, records
 * for BGM), the weighted glucose sum and the weighted sum of squared deviations from the mean.
 */
export interface Moments {
  weight: number;
  glucose: number;
  squares: number;
}

/** The readings of one UTC hour, as Tidepool's summaries keep them (docs/summaries.md, Hourly buckets). */
export interface HourBucket {
  /** Epoch milliseconds of the hour's start. */
  hour: number;
  firstTime: number;
  lastTime: number;
  /** Extremes of the accepted values; 0 means "not set", as in Tidepool. */
  min: number;
  max: number;
  /** Minutes credited to the last accepted reading: the blackout window for the next one. */
  lastRecordDuration: number;
  ranges: Record<RangeName | 'total', RangeCount>;
  moments: Moments;
}

const HOUR_MS = 3_600_000;
/** A bucket already holding more than this many readings accepts no more. */
const MAX_RECORDS_PER_HOUR = 60;
/** CGM readings closer than their predecessor's minutes less this are the same reading again. */
const BLACKOUT_SLACK_MS = 10_000;

export function hourOf(time: number): number {
  return Math.floor(time / HOUR_MS) * HOUR_MS;
}

export function emptyBucket(hour: number): HourBucket {
  const ranges = Object.fromEntries([...RANGES, 'total'].map((name) => [name, { records: 0, minutes: 0 }]));
  return {
    hour,
    firstTime: 0,
    lastTime: 0,
    min: 0,
    max: 0,
    lastRecordDuration: 0,
    ranges: ranges as HourBucket['ranges'],
    moments: { weight: 0, glucose: 0, squares: 0 },
  };
}

/** What decides whether a bucket takes one more reading: its count and its last accepted reading. */
type Intake = Pick<HourBucket, 'lastTime' | 'lastRecordDuration'> & { records: number };

/** Whether a bucket in this state refuses the reading: full, or (CGM) inside the last reading's blackout. */
function refuses(intake: Intake, time: number, kind: SummaryKind): boolean {
  if (intake.records > MAX_RECORDS_PER_HOUR) return true;
  return kind === 'cgm' && time - intake.lastTime < intake.lastRecordDuration * 60_000 - BLACKOUT_SLACK_MS;
}

const skips = (bucket: HourBucket, reading: Reading, kind: SummaryKind) =>
  refuses(
    { records: bucket.ranges.total.records, lastTime: bucket.lastTime, lastRecordDuration: bucket.lastRecordDuration },
    reading.time,
    kind,
  );

/**
 * Adds a reading to the bucket of its hour unless the bucket refuses it; answers whether it was
 * accepted. Readings must arrive in time order.
 */
export function addReading(bucket: HourBucket, reading: Reading, kind: SummaryKind): boolean {
  if (skips(bucket, reading, kind)) return false;
  const { mmol, minutes } = reading;
  for (const name of [...rangesOf(mmol), 'total'] as const) {
    bucket.ranges[name].records += 1;
    bucket.ranges[name].minutes += minutes;
  }
  addMoment(bucket.moments, mmol, kind === 'cgm' ? minutes : 1);
  if (bucket.firstTime === 0) bucket.firstTime = reading.time;
  bucket.lastTime = reading.time;
  bucket.lastRecordDuration = minutes;
  if (bucket.min === 0 || mmol < bucket.min) bucket.min = mmol;
  if (bucket.max === 0 || mmol > bucket.max) bucket.max = mmol;
  return true;
}

/** West's weighted incremental update of the sum of squared deviations. */
function addMoment(moments: Moments, value: number, weight: number): void {
  if (weight === 0) return;
  const mean = moments.weight ? moments.glucose / moments.weight : 0;
  const weightAfter = moments.weight + weight;
  const meanAfter = mean + (weight / weightAfter) * (value - mean);
  moments.squares += weight * (value - mean) * (value - meanAfter);
  moments.weight = weightAfter;
  moments.glucose += value * weight;
}

/**
 * Decides, reading by reading in time order, which readings the buckets of their hours accept
 * (the hourly cap and, for CGM, the blackout window): exactly those bucketsOf counts, for views
 * that need the readings themselves (the AGP). Only what acceptance depends on is kept: a whole
 * bucket per hour costs more than the AGP itself, and readings need not be objects.
 */
export class Acceptance {
  private hour = Number.NaN;
  private readonly intake: Intake = { records: 0, lastTime: 0, lastRecordDuration: 0 };

  constructor(private readonly kind: SummaryKind) {}

  /** Whether the reading is accepted (then it counts against the next ones of its hour). */
  accepts(time: number, minutes: number): boolean {
    const { intake } = this;
    if (hourOf(time) !== this.hour) {
      this.hour = hourOf(time);
      intake.records = 0;
      intake.lastTime = 0;
      intake.lastRecordDuration = 0;
    }
    if (refuses(intake, time, this.kind)) return false;
    intake.records += 1;
    intake.lastTime = time;
    intake.lastRecordDuration = minutes;
    return true;
  }
}

/** The readings, in time order, that the buckets of their hours accept (Acceptance). */
export function acceptedReadings<T extends Reading>(readings: Iterable<T>, kind: SummaryKind): T[] {
  const acceptance = new Acceptance(kind);
  const accepted: T[] = [];
  for (const reading of readings) if (acceptance.accepts(reading.time, reading.minutes)) accepted.push(reading);
  return accepted;
}

/** Sorts readings by time and fills hourly buckets from them. */
export function bucketsOf(readings: readonly Reading[], kind: SummaryKind): HourBucket[] {
  const buckets = new Map<number, HourBucket>();
  for (const reading of [...readings].sort((a, b) => a.time - b.time)) {
    const hour = hourOf(reading.time);
    let bucket = buckets.get(hour);
    if (!bucket) buckets.set(hour, (bucket = emptyBucket(hour)));
    addReading(bucket, reading, kind);
  }
  return [...buckets.values()];
}
