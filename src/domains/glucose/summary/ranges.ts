/**
 * Tidepool's glucose ranges, in mmol/L (summary schema version 6). Classification is by the
 * stored (normalised) mmol/L value, so whole mg/dL values fall as docs/summaries.md, Ranges lists:
 * 54 mg/dL is very low and 70 mg/dL low, unlike the usual clinical "<54" / "<70" reading.
 */
export const THRESHOLDS_MMOL = { veryLow: 3.0, low: 3.9, high: 10.0, veryHigh: 13.9, extremeHigh: 19.4 } as const;

export const RANGES = ['veryLow', 'low', 'target', 'high', 'veryHigh', 'extremeHigh', 'anyLow', 'anyHigh'] as const;
export type RangeName = (typeof RANGES)[number];

/**
 * The ranges a reading counts in. Low excludes very low and high excludes very high; very high
 * includes extreme high; the target range is inclusive at both ends.
 */
export function rangesOf(mmol: number): readonly RangeName[] {
  const { veryLow, low, high, veryHigh, extremeHigh } = THRESHOLDS_MMOL;
  if (mmol < veryLow) return ['veryLow', 'anyLow'];
  if (mmol < low) return ['low', 'anyLow'];
  if (mmol <= high) return ['target'];
  if (mmol <= veryHigh) return ['high', 'anyHigh'];
  return mmol >= extremeHigh ? ['veryHigh', 'extremeHigh', 'anyHigh'] : ['veryHigh', 'anyHigh'];
}
