import { flagName, type ClinicCopy } from '../src/domains/glucose/clinic-copy';
import { SUMMARY_SCHEMA_VERSION } from '../src/domains/glucose/glucose-summary.entity';
import type { GlucoseService } from '../src/domains/glucose/glucose.service';
import { THRESHOLDS_MMOL } from '../src/domains/glucose/summary/ranges';
import { JsonText } from './route';
import type { Scope } from '../src/kernel/scope';

const CONFIG = JSON.stringify({
  schemaVersion: SUMMARY_SCHEMA_VERSION,
  highGlucoseThreshold: THRESHOLDS_MMOL.high,
  veryHighGlucoseThreshold: THRESHOLDS_MMOL.veryHigh,
  lowGlucoseThreshold: THRESHOLDS_MMOL.low,
  veryLowGlucoseThreshold: THRESHOLDS_MMOL.veryLow,
});

const DATE_FIELDS = ['lastData', 'firstData', 'lastUploadDate', 'lastUpdatedDate', 'outdatedSince'] as const;
const FLAGGED_DATES = ['firstData', 'lastData', 'lastUploadDate', 'outdatedSince'] as const;

/** The summary's dates that are set, then the has-flags of four of them. */
function legacyDates(dates: ClinicCopy['dates']): Record<string, unknown> {
  const legacy: Record<string, unknown> = {};
  for (const name of DATE_FIELDS) if (dates[name]) legacy[name] = dates[name].toISOString();
  for (const name of FLAGGED_DATES) legacy[flagName(name)] = Boolean(dates[name]);
  return legacy;
}

/**
 * Tidepool's `summary` of a clinic patient (`{cgmStats, bgmStats}`, each `{config, dates,
 * periods}` with periods keyed `1d` … `30d`) as JSON text, its periods the clinic copy's text as
 * the glucose service keeps it; undefined without readings, or for a patient who grants the
 * clinic nothing (null).
 */
export function legacySummaryJson(copies: readonly ClinicCopy[] | null): JsonText | undefined {
  const stats = (kind: ClinicCopy['kind']) => {
    const copy = copies?.find((candidate) => candidate.kind === kind);
    return copy && statsJson(copy);
  };
  const kinds = [stats('cgm'), stats('bgm')].filter((json) => json !== undefined);
  return kinds.length ? new JsonText('{', JsonText.joined(kinds), '}') : undefined;
}

/**
 * Each copy's `"cgmStats":{…}` (or `bgmStats`), made once per copy: the glucose service answers a
 * copy it keeps as the same object (clinicCopiesOfClinicPatient), so a page read again shapes no
 * dates, and what is made goes when the copy does.
 */
const statsOfCopy = new WeakMap<ClinicCopy, JsonText>();

function statsJson(copy: ClinicCopy): JsonText {
  let json = statsOfCopy.get(copy);
  if (!json) {
    const dates = JSON.stringify(legacyDates(copy.dates));
    const prefix = `"${copy.kind}Stats":{"config":${CONFIG},"dates":${dates},"periods":`;
    statsOfCopy.set(copy, (json = new JsonText(prefix, copy.periods, '}')));
  }
  return json;
}

/** A clinic patient, as far as reading its summaries goes: what it grants the clinic decides what is read. */
export interface SummarisedPatient {
  userId: string;
  permissions: readonly string[];
}

/**
 * The patient's legacy `summary` as JSON text, straight from the glucose service (the page's
 * summaries in one statement); `offset` shows the previous periods in their place (Tidepool's
 * `offsetPeriods`).
 */
export async function clinicPatientSummaryJson(
  glucose: Pick<GlucoseService, 'clinicCopiesOfClinicPatient'>,
  scope: Scope,
  patient: SummarisedPatient,
  { offset = false }: { offset?: boolean } = {},
): Promise<JsonText | undefined> {
  return legacySummaryJson(await glucose.clinicCopiesOfClinicPatient(scope, patient, offset));
}
