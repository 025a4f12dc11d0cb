const HOUR_MS = 3_600_000;

/** The hour of `at`, counted from 1970-01-01T00:00Z: what `access_log_hour(at)` answers in PostgreSQL. */
export const hourOf = (at: Date): number => Math.floor(at.getTime() / HOUR_MS);

/** The first hour that starts at or after `at`. */
export const hourFrom = (at: Date): number => Math.ceil(at.getTime() / HOUR_MS);

/** An account and an hour in which a record reached it: a row of `access_log_hours`. */
export interface SubjectHour {
  subjectId: string;
  hour: number;
}

/** `pairs` without repeats, in the order first met. */
export function distinctHours(pairs: Iterable<SubjectHour>): SubjectHour[] {
  const distinct = new Map<string, SubjectHour>();
  for (const pair of pairs) distinct.set(`${pair.hour}/${pair.subjectId}`, pair);
  return [...distinct.values()];
}

/**
 * The (account, hour) pairs this instance has written to `access_log_hours` in the current and
 * the previous hour of its clock, so that an hour costs each account one row, written with its
 * first record of the hour, and not a row per record. Records of older hours (written late,
 * after an outage) always write their row again: that is what clears an hour's stored counts
 * (access-log.user-log.repository.ts counts only hours over for two hours). A busy hour forgets
 * its accounts once it holds `maxPerHour`: memory stays bounded, and a pair written again is only
 * a conflict PostgreSQL resolves.
 */
export class KnownHours {
  private readonly hours = new Map<number, Set<string>>();

  constructor(private readonly maxPerHour = 100_000) {}

  /** The distinct pairs of `pairs` not known to be written, at `now`. */
  unknown(pairs: Iterable<SubjectHour>, now: Date): SubjectHour[] {
    const oldest = hourOf(now) - 1;
    // Known pairs are dropped first: on a busy instance nearly all are, and they need no key built.
    const fresh = [...pairs].filter((pair) => pair.hour < oldest || !this.hours.get(pair.hour)?.has(pair.subjectId));
    return distinctHours(fresh);
  }

  /** Notes pairs as written (once their INSERT has committed), at `now`. */
  remember(pairs: readonly SubjectHour[], now: Date): void {
    const oldest = hourOf(now) - 1;
    for (const hour of this.hours.keys()) if (hour < oldest) this.hours.delete(hour);
    for (const { subjectId, hour } of pairs) {
      if (hour < oldest) continue;
      let subjects = this.hours.get(hour);
      if (!subjects) this.hours.set(hour, (subjects = new Set()));
      if (subjects.size >= this.maxPerHour) subjects.clear();
      subjects.add(subjectId);
    }
  }
}
