import { LRUCache } from 'lru-cache';
import { forbidden, invalid } from '../../../kernel/errors';
import type { Scope } from '../../../kernel/scope';
import { isKnownTimeZone } from '../../../kernel/time-zones';
import { assertUserId } from '../../../kernel/validation';
import { MAY_READ_DATA, type AccessPolicy } from '../../permissions/access-policy';
import { localMinuteOfDay, localOffset, type LocalTimeHints } from '../local-time';
import { Acceptance } from '../summary/buckets';
import type { GlucoseUnits } from '../summary/units';
import { AGP_PERIODS, agpBinsByMinute, DEFAULT_AGP_PERIOD, type AgpBin, type AgpPeriod } from './agp';
import { readingsRevision, windowReadings, type WindowReadings } from './agp.repository';

/** The Ambulatory Glucose Profile of one period (agp.ts has the definition). */
export interface Agp {
  period: AgpPeriod;
  units: GlucoseUnits;
  /** The window: start of its first hour, end of its newest; null without CGM data. */
  from: Date | null;
  to: Date | null;
  /** The readings counted: those the CGM summary of the period counts. */
  readings: number;
  bins: AgpBin[];
}

export interface AgpArgs {
  /** `7d`, `14d` (default) or `30d`. */
  period?: string | null;
  /** Default: the clinic's preferredBgUnits inside a clinic, else mg/dL. */
  units?: GlucoseUnits | null;
  /** An IANA zone for readings whose record and dataset name none. */
  timeZone?: string | null;
  /** Read inside this clinic: its rules decide, its zone is the last fallback. */
  clinicId?: string | null;
}

/** What the clinics domain answers of a patient read inside a clinic, once it let the caller read the record. */
export interface ClinicPatientView {
  /** What the patient granted the clinic. */
  permissions: readonly string[];
  timezone: string | null;
  units: GlucoseUnits;
}

/** Checks (and logs) the caller's access to the clinic's record of the patient: FORBIDDEN, NOT_FOUND. */
export type ClinicPatientLookup = (scope: Scope, clinicId: string, userId: string) => Promise<ClinicPatientView>;

interface Computation {
  period: AgpPeriod;
  units: GlucoseUnits;
  callerZone: string | null;
  clinicZone: string | null;
}

/**
 * How long a remembered AGP may answer while its readings are unchanged. The window is anchored
 * on the newest reading no more than a day ahead of now, so time alone can move it only for a
 * reading stamped that far ahead; this bounds how late such a reading joins.
 */
const REMEMBERED_MS = 5 * 60_000;

/** Where the AGP's readings and their revision come from: agp.repository.ts (a unit test gives its own). */
export interface AgpReadings {
  window: typeof windowReadings;
  revision: typeof readingsRevision;
}

const FROM_DATABASE: AgpReadings = { window: windowReadings, revision: readingsRevision };

/** An AGP computed from the readings at `revision` (agp.repository.ts). */
interface Remembered {
  revision: string;
  agp: Agp;
}

/**
 * The AGP: readers of the patient's data (docs/decisions.md, access rules) read it; inside a
 * clinic, the clinic's rules for its patients' summaries (a patient granting the clinic anything).
 *
 * Dashboards read the same patients' AGPs again and again while their readings change every few
 * minutes at most: each instance remembers its `rememberedAgps` latest AGPs, and answers one again
 * only after checking, in one index lookup, that the readings' revision is the one it was computed
 * from (so every instance answers what the database holds). Access is checked, and logged, on
 * every read before the cache is asked.
 */
export class AgpService {
  private readonly remembered: LRUCache<string, Remembered> | null;

  constructor(
    private readonly access: AccessPolicy,
    private readonly clinicPatient: ClinicPatientLookup,
    rememberedAgps: number,
    private readonly readings: AgpReadings = FROM_DATABASE,
    private readonly now: () => number = Date.now,
  ) {
    this.remembered = rememberedAgps > 0 ? new LRUCache({ max: rememberedAgps, ttl: REMEMBERED_MS }) : null;
  }

  async agp(scope: Scope, userId: string, args: AgpArgs): Promise<Agp> {
    assertUserId(userId);
    const period = agpPeriod(args.period);
    const callerZone = timeZone(args.timeZone);
    if (args.clinicId !== null && args.clinicId !== undefined) {
      const patient = await this.clinicPatient(scope, args.clinicId, userId);
      if (!patient.permissions.length) throw forbidden('The patient grants the clinic nothing to read');
      const units = args.units ?? patient.units;
      return this.compute(scope, userId, { period, units, callerZone, clinicZone: patient.timezone });
    }
    await this.access.assertAllowed(scope, userId, MAY_READ_DATA);
    return this.compute(scope, userId, { period, units: args.units ?? 'MG_DL', callerZone, clinicZone: null });
  }

  /**
   * A clinic patient's AGP, for a caller its clinic already let read the patient (as
   * GlucoseService.summariesOfClinicPatient): the patient's grant to the clinic decides.
   */
  async agpOfClinicPatient(
    scope: Scope,
    patient: { userId: string; permissions: readonly string[]; timezone: string | null },
    args: Omit<AgpArgs, 'clinicId'> & { units: GlucoseUnits },
  ): Promise<Agp> {
    const period = agpPeriod(args.period);
    const callerZone = timeZone(args.timeZone);
    if (!patient.permissions.length) throw forbidden('The patient grants the clinic nothing to read');
    return this.compute(scope, patient.userId, { period, units: args.units, callerZone, clinicZone: patient.timezone });
  }

  /** The AGP remembered for these readings, else computed (and remembered when they have a revision). */
  private async compute(scope: Scope, userId: string, computation: Computation): Promise<Agp> {
    const { period, units, callerZone, clinicZone } = computation;
    const key = [userId, period, units, callerZone ?? '', clinicZone ?? ''].join('\u0000');
    const remembered = this.remembered?.get(key);
    if (remembered && remembered.revision === (await this.readings.revision(scope.em, userId))) return remembered.agp;
    const { agp, revision } = await this.computeNow(scope, userId, computation);
    if (revision !== null) this.remembered?.set(key, { revision, agp });
    return agp;
  }

  private async computeNow(
    scope: Scope,
    userId: string,
    { period, units, ...zones }: Computation,
  ): Promise<{ agp: Agp; revision: string | null }> {
    const { window, readings, revision } = await this.readings.window(scope.em, userId, period, this.now());
    const { minuteOfDay, mmol } = acceptedByLocalMinute(readings, zones);
    const agp = {
      period,
      units,
      from: window && new Date(window.from),
      to: window && new Date(window.to),
      readings: mmol.length,
      bins: agpBinsByMinute(minuteOfDay, mmol, units),
    };
    return { agp, revision };
  }
}

/**
 * The readings the CGM summary counts (buckets.ts Acceptance), each as its minute of the local
 * day (local-time.ts, from its own hints and the request's zones) and its value.
 */
function acceptedByLocalMinute(
  readings: WindowReadings,
  zones: Pick<LocalTimeHints, 'callerZone' | 'clinicZone'>,
): { minuteOfDay: Uint16Array; mmol: Float64Array } {
  const acceptance = new Acceptance('cgm');
  const minuteOfDay = new Uint16Array(readings.time.length);
  const mmol = new Float64Array(readings.time.length);
  // One hints object, refilled per reading: thousands of readings make no garbage.
  const hints: LocalTimeHints = { ...zones };
  let accepted = 0;
  for (let index = 0; index < readings.time.length; index += 1) {
    const time = readings.time[index]!;
    if (!acceptance.accepts(time, readings.minutes[index]!)) continue;
    hints.recordOffset = readings.recordOffset[index];
    hints.recordZone = readings.recordZone[index];
    hints.datasetZone = readings.datasetZone[index];
    minuteOfDay[accepted] = localMinuteOfDay(time, localOffset(time, hints).minutes);
    mmol[accepted] = readings.mmol[index]!;
    accepted += 1;
  }
  return { minuteOfDay: minuteOfDay.subarray(0, accepted), mmol: mmol.subarray(0, accepted) };
}

function agpPeriod(period: string | null | undefined): AgpPeriod {
  if (period === null || period === undefined) return DEFAULT_AGP_PERIOD;
  if (Object.hasOwn(AGP_PERIODS, period)) return period as AgpPeriod;
  throw invalid(`period must be one of ${Object.keys(AGP_PERIODS).join(', ')}`, 'period');
}

function timeZone(zone: string | null | undefined): string | null {
  if (zone === null || zone === undefined) return null;
  if (zone.length <= 64 && isKnownTimeZone(zone)) return zone;
  throw invalid('timeZone must be an IANA time zone name such as Europe/Berlin', 'timeZone');
}
