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
  return new Date(time + offsetMinutes * MINUTE_MS).toISOString().slice(0, 19);
}

/** `+05:30`, `-03:00`, `+00:00`: an offset in minutes as RFC 3339 writes it. */
export function offsetText(offsetMinutes: number): string {
  const magnitude = Math.abs(offsetMinutes);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(magnitude / 60))}:${pad(magnitude % 60)}`;
}
