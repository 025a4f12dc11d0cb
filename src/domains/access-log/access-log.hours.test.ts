import { describe, expect, it } from '@jest/globals';
import { distinctHours, hourFrom, hourOf, KnownHours } from './access-log.hours';

const NOW = new Date('2026-11-25T12:30:00Z');
const THIS_HOUR = hourOf(NOW);
const pair = (subjectId: string, hour = THIS_HOUR) => ({ subjectId, hour });

describe('access log hours', () => {
  it('numbers hours from 1970-01-01T00:00Z, as access_log_hour does', () => {
    expect(hourOf(new Date('1970-01-01T00:59:59.999Z'))).toBe(0);
    expect(hourOf(new Date('1970-01-01T01:00:00Z'))).toBe(1);
    expect(hourOf(new Date('1969-12-31T23:59:59.999Z'))).toBe(-1);
    expect(hourOf(new Date('2026-11-25T13:30:00+01:00'))).toBe(THIS_HOUR);
    expect(hourFrom(new Date('1970-01-01T01:00:00Z'))).toBe(1);
    expect(hourFrom(new Date('1970-01-01T01:00:00.001Z'))).toBe(2);
  });

  it('drops repeated pairs, keeping the order first met', () => {
    expect(distinctHours([pair('a'), pair('b'), pair('a'), pair('a', 7)])).toEqual([
      pair('a'),
      pair('b'),
      pair('a', 7),
    ]);
  });

  it('asks for each pair of this and the previous hour until it is remembered', () => {
    const known = new KnownHours();
    const pairs = [pair('a'), pair('b'), pair('a'), pair('a', THIS_HOUR - 1)];
    expect(known.unknown(pairs, NOW)).toEqual([pair('a'), pair('b'), pair('a', THIS_HOUR - 1)]);
    known.remember([pair('a'), pair('a', THIS_HOUR - 1)], NOW);
    expect(known.unknown(pairs, NOW)).toEqual([pair('b')]);
  });

  it('always asks for pairs of older hours, and forgets hours as the clock moves on', () => {
    const known = new KnownHours();
    known.remember([pair('a', THIS_HOUR - 2), pair('a'), pair('a', THIS_HOUR - 1)], NOW);
    expect(known.unknown([pair('a', THIS_HOUR - 2)], NOW)).toEqual([pair('a', THIS_HOUR - 2)]);
    const twoHoursLater = new Date(NOW.getTime() + 2 * 3_600_000);
    known.remember([], twoHoursLater);
    expect(known.unknown([pair('a'), pair('a', THIS_HOUR + 1)], twoHoursLater)).toEqual([
      pair('a'),
      pair('a', THIS_HOUR + 1),
    ]);
  });

  it('forgets an hour’s accounts once it holds the most it may', () => {
    const known = new KnownHours(2);
    known.remember([pair('a'), pair('b'), pair('c')], NOW);
    expect(known.unknown([pair('a'), pair('b'), pair('c')], NOW)).toEqual([pair('a'), pair('b')]);
  });
});
