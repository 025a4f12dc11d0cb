import { invalid } from '../../kernel/errors';
import type { Scope } from '../../kernel/scope';
import { isKnownTimeZone, localDateTime } from '../../kernel/time-zones';
import { MAY_READ_DATA, type AccessPolicy } from '../permissions/access-policy';
import { datasetLoader } from './glucose.loaders';
import { localOffset, type LocalOffset, type LocalTimeHints } from './local-time';
import { lastTimeZoneLoader } from './local-time.loaders';

/** The fallbacks a caller sets for readings whose record and dataset name no zone. */
export type ZoneFallbacks = Pick<LocalTimeHints, 'callerZone' | 'clinicZone'>;

/** What a caller asks for: a `timeZone` (IANA name) and a clinic whose zone applies inside it. */
export interface ZoneRequest {
  timeZone?: string | null;
  clinicId?: string | null;
}

/** A reading's local time (no offset), the offset applied and where it came from. */
export interface LocalTime extends LocalOffset {
  localTime: string;
}

/** The record fields the local-time rule (local-time.ts) reads. */
export const recordHints = (fields: Record<string, unknown>): Pick<LocalTimeHints, 'recordOffset' | 'recordZone'> => ({
  recordOffset: fields.timezoneOffset,
  recordZone: fields.timezone,
});

export function localTimeOf(time: Date, hints: LocalTimeHints): LocalTime {
  const { minutes, source } = localOffset(time.getTime(), hints);
  return { minutes, source, localTime: localDateTime(time.getTime(), minutes) };
}

/** A caller's `timeZone`: an IANA name the runtime knows, or a 400 naming the parameter. */
export function assertTimeZone(name: string, field = 'timeZone'): string {
  if (!isKnownTimeZone(name)) throw invalid(`${field} "${name.slice(0, 64)}" is not a known IANA time zone`, field);
  return name;
}

/**
 * Local time as readers see it: the one rule of local-time.ts fed with each reading's record,
 * its dataset's zone (through the request's dataset loader), the caller's zone and the clinic's.
 */
export class LocalTimeService {
  constructor(
    private readonly access: AccessPolicy,
    /** A clinic's `timezone` for its clinicians and servers (FORBIDDEN for others, NOT_FOUND when none). */
    private readonly clinicTimeZone: (scope: Scope, clinicId: string) => Promise<string | null>,
  ) {}

  /** The fallbacks of a request: its `timeZone` checked, its clinic's zone read (the caller must be its clinician). */
  async fallbacks(scope: Scope, request: ZoneRequest): Promise<ZoneFallbacks> {
    const callerZone = request.timeZone == null ? null : assertTimeZone(request.timeZone);
    const clinicZone = request.clinicId == null ? null : await this.clinicTimeZone(scope, request.clinicId);
    return { callerZone, clinicZone };
  }

  /** The local time of a stored reading, its dataset's zone read in one query per request. */
  async ofReading(
    scope: Scope,
    reading: { time: Date; datasetId: string; fields: Record<string, unknown> },
    fallbacks: ZoneFallbacks,
  ): Promise<LocalTime> {
    const dataset = await datasetLoader(scope).load(reading.datasetId);
    return localTimeOf(reading.time, {
      ...recordHints(reading.fields),
      datasetZone: dataset?.details.timezone,
      ...fallbacks,
    });
  }

  /** The zone a user's uploads last named; null when none did or the caller may not read its data. */
  async lastTimeZoneOf(scope: Scope, userId: string): Promise<string | null> {
    if (!(await this.access.isAllowed(scope, userId, MAY_READ_DATA))) return null;
    return lastTimeZoneLoader(scope).load(userId);
  }

  /** The same for a clinic's patient, by the clinic's rules (as its summaries): any grant to the clinic. */
  async lastTimeZoneOfClinicPatient(
    scope: Scope,
    patient: { userId: string; permissions: readonly string[] },
  ): Promise<string | null> {
    return patient.permissions.length ? lastTimeZoneLoader(scope).load(patient.userId) : null;
  }
}
