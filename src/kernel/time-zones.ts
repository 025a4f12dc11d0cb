const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** Hours whose offset is remembered per zone; a year of hours is ~9,000, so this bounds memory, not speed. */
const CACHED_HOURS_PER_ZONE = 20_000;

/** `GMT+05:30`, `GMT-03:00` or `GMT` (the runtime's `longOffset` zone name). */
const LONG_OFFSET = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/;

interface Zone {
  format: Intl.DateTimeFormat;
  /** Offset in minutes of each hour (epoch ms of its start) without a change inside it. */
  hours: Map<number, number>;
}

const zones = new Map<string, Zone | null>();

function zoneNamed(name: string): Zone | null {
  let zone = zones.get(name);
  if (zone === undefined) {
    try {
      zone = {
        format: new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' }),
        hours: new Map(),
      };
    } catch {
      zone = null;
    }
    zones.set(name, zone);
  }
  return zone;
}

function offsetAt(zone: Zone, time: number): number {
  const name = zone.format.formatToParts(time).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const [, sign, hours, minutes] = LONG_OFFSET.exec(name) ?? [];
  if (!sign) return 0;
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

/**
 * The UTC offset in minutes of the IANA zone `name` at `time` (epoch ms), from the runtime's time
 * zone data; null for a name the runtime does not know. Asked for thousands of readings at a time,
 * so an hour whose two ends share an offset is remembered as a whole (zones change offset at most
 * once in an hour); the hour of a change is answered minute by minute.
 */
export function zoneOffsetMinutes(name: string, time: number): number | null {
  const zone = zoneNamed(name);
  if (!zone) return null;
  const hour = Math.floor(time / HOUR_MS) * HOUR_MS;
  const known = zone.hours.get(hour);
  if (known !== undefined) return known;
  const start = offsetAt(zone, hour);
  if (start !== offsetAt(zone, hour + HOUR_MS - 1)) return offsetAt(zone, Math.floor(time / MINUTE_MS) * MINUTE_MS);
  if (zone.hours.size >= CACHED_HOURS_PER_ZONE) zone.hours.clear();
  zone.hours.set(hour, start);
  return start;
}

/** Whether the runtime knows `name` as a time zone (IANA names and their aliases). */
export const isKnownTimeZone = (name: string): boolean => zoneNamed(name) !== null;

/** `2024-03-10T01:59:00` (local date and time, no offset) of `time` shifted by `offsetMinutes`. */
export function localDateTime(time: number, offsetMinutes: number): string {
  return isoDateTime(time + offsetMinutes * MINUTE_MS, false);
}

const DAY_MS = 24 * 60 * MINUTE_MS;
/** Epoch ms of 0000-01-01 and 10000-01-01: years with four digits, which toISOString writes plainly. */
const FOUR_DIGIT_YEARS = [-62_167_219_200_000, 253_402_300_800_000] as const;
/** The `YYYY-MM-DDT` of the day last written: readings come in time order, so most share it. */
const lastDay = { day: Number.NaN, text: '' };

/** `00`…`99` and `000`…`999`, made once: padding each value would allocate a string per field. */
const PAD2 = Array.from({ length: 100 }, (_, value) => String(value).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, value) => String(value).padStart(3, '0'));

/**
 * `time` (epoch ms) as `Date#toISOString` writes it (`2024-03-10T01:59:00.000Z`), or without
 * milliseconds and zone (`2024-03-10T01:59:00`), byte for byte, without a Date per value: an export
 * writes three of these for each of a year's 100,000 readings.
 */
export function isoDateTime(time: number, withMillis = true): string {
  if (!Number.isInteger(time) || time < FOUR_DIGIT_YEARS[0] || time >= FOUR_DIGIT_YEARS[1]) {
    const text = new Date(time).toISOString();
    return withMillis ? text : text.slice(0, 19);
  }
  const day = Math.floor(time / DAY_MS);
  if (day !== lastDay.day) {
    lastDay.day = day;
    lastDay.text = new Date(day * DAY_MS).toISOString().slice(0, 11);
  }
  const ms = time - day * DAY_MS;
  const seconds = Math.floor(ms / 1000);
  const clock = `${lastDay.text}${PAD2[Math.floor(seconds / 3600)]}:${PAD2[Math.floor(seconds / 60) % 60]}:${PAD2[seconds % 60]}`;
  return withMillis ? `${clock}.${PAD3[ms % 1000]}Z` : clock;
}

/** `+05:30`, `-03:00`, `+00:00`: an offset in minutes as RFC 3339 writes it. */
export function offsetText(offsetMinutes: number): string {
  const magnitude = Math.abs(offsetMinutes);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(magnitude / 60))}:${pad(magnitude % 60)}`;
}
