import { describe, expect, it } from '@jest/globals';
import { isKnownTimeZone, isoDateTime, localDateTime, offsetText, zoneOffsetMinutes } from './time-zones';

const at = (iso: string) => Date.parse(iso);

describe('zone offsets', () => {
  it('follow New York across the spring change, to the minute', () => {
    // 2024-03-10 02:00 EST became 03:00 EDT, at 07:00 UTC.
    expect(zoneOffsetMinutes('America/New_York', at('2024-03-10T06:59:59Z'))).toBe(-300);
    expect(zoneOffsetMinutes('America/New_York', at('2024-03-10T07:00:00Z'))).toBe(-240);
  });

  it('answer every minute of an hour with a change correctly, whatever was asked before', () => {
    // Lord Howe Island moves by half an hour: +11:00 → +10:30 at 2024-04-06 15:00 UTC.
    const start = at('2024-04-06T14:00:00Z');
    const offsets = Array.from({ length: 120 }, (_, minute) =>
      zoneOffsetMinutes('Australia/Lord_Howe', start + minute * 60_000),
    );
    expect(offsets.slice(0, 60).every((offset) => offset === 660)).toBe(true);
    expect(offsets.slice(60).every((offset) => offset === 630)).toBe(true);
    // Asked again in reverse order (the cache must not smear one minute's answer over the hour).
    expect(zoneOffsetMinutes('Australia/Lord_Howe', start + 119 * 60_000)).toBe(630);
    expect(zoneOffsetMinutes('Australia/Lord_Howe', start)).toBe(660);
  });

  it('know half- and quarter-hour zones and UTC', () => {
    expect(zoneOffsetMinutes('Asia/Kolkata', at('2024-07-01T00:00:00Z'))).toBe(330);
    expect(zoneOffsetMinutes('Asia/Kathmandu', at('2024-07-01T00:00:00Z'))).toBe(345);
    expect(zoneOffsetMinutes('Etc/UTC', at('2024-07-01T00:00:00Z'))).toBe(0);
  });

  it('answer null for a name the runtime does not know', () => {
    expect(zoneOffsetMinutes('Mars/Olympus_Mons', 0)).toBeNull();
    expect(isKnownTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(isKnownTimeZone('US/Eastern')).toBe(true);
  });
});

describe('local date-times and offsets as text', () => {
  it('shift the instant and drop the offset', () => {
    expect(localDateTime(at('2024-03-10T07:30:00Z'), -240)).toBe('2024-03-10T03:30:00');
    expect(localDateTime(at('2024-01-01T00:10:00Z'), 345)).toBe('2024-01-01T05:55:00');
  });

  it('write instants exactly as toISOString does, with or without milliseconds', () => {
    const edges = [
      '0000-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      '1969-12-31T23:59:59.999Z',
      '2024-02-29T12:00:00.005Z',
    ];
    const times = [...edges.map(at), -62_167_219_200_001, 253_402_300_800_000, 0.5];
    // Time order and back: the day remembered must not leak into the next.
    for (let step = 0; step < 2_000; step += 1) times.push(Math.round(Math.sin(step) * 4e12) + step * 7_919);
    for (const time of times) {
      expect(isoDateTime(time)).toBe(new Date(time).toISOString());
      expect(isoDateTime(time, false)).toBe(new Date(time).toISOString().slice(0, 19));
    }
  });

  it('write offsets as RFC 3339 does', () => {
    expect(offsetText(330)).toBe('+05:30');
    expect(offsetText(-210)).toBe('-03:30');
    expect(offsetText(0)).toBe('+00:00');
  });
});
