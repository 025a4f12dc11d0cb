import { zoneOffsetMinutes } from '../../kernel/time-zones';

const MINUTE_MS = 60_000;
const DAY_MINUTES = 1440;

/** Where a reading's local time came from, strongest first (see docs/decisions.md, local time). */
export type LocalTimeSource = 'record-offset' | 'record-zone' | 'dataset-zone' | 'caller-zone' | 'clinic-zone' | 'utc';

/** What may tell a reading's local time; any of them may be missing. */
export interface LocalTimeHints {
  /** The record's own `timezoneOffset` (minutes east of UTC), as Tidepool's data model carries it. */
  recordOffset?: unknown;
  /** The record's own `timezone` (an IANA name). */
  recordZone?: unknown;
  /** The `timezone` of the record's dataset (upload). */
  datasetZone?: unknown;
  /** The `timeZone` the caller asked for. */
  callerZone?: string | null;
  /** The clinic's `timezone`, when the reading is read inside a clinic. */
  clinicZone?: string | null;
}

export interface LocalOffset {
  /** Minutes east of UTC. */
  minutes: number;
  source: LocalTimeSource;
}

const ZONE_SOURCES = [
  ['recordZone', 'record-zone'],
  ['datasetZone', 'dataset-zone'],
  ['callerZone', 'caller-zone'],
  ['clinicZone', 'clinic-zone'],
] as const;

/**
 * The offset that turns a reading's time (epoch ms) into its local time: the record's own offset;
 * else the first known IANA zone of the record, its dataset, the caller and the clinic, at the
 * reading's own instant (so DST changes inside a period are honoured); else UTC. A zone name the
 * runtime does not know is passed over, as if it were missing.
 */
export function localOffset(time: number, hints: LocalTimeHints): LocalOffset {
  const { recordOffset } = hints;
  if (typeof recordOffset === 'number' && Number.isInteger(recordOffset))
    return { minutes: recordOffset, source: 'record-offset' };
  for (const [hint, source] of ZONE_SOURCES) {
    const zone = hints[hint];
    const minutes = typeof zone === 'string' && zone ? zoneOffsetMinutes(zone, time) : null;
    if (minutes !== null) return { minutes, source };
  }
  return { minutes: 0, source: 'utc' };
}

/** The minute of the local day (0–1439) of `time` at `offsetMinutes` east of UTC. */
export function localMinuteOfDay(time: number, offsetMinutes: number): number {
  const minutes = Math.floor(time / MINUTE_MS) + offsetMinutes;
  return ((minutes % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
}
