/** Minutes a CGM reading stands for when its device says nothing (docs/summaries.md, Minutes). */
const DEFAULT_CGM_MINUTES = 5;

/**
 * Minutes credited to a CGM reading, first rule that applies: its sample interval; a FreeStyle
 * Libre 3 (5); an older FreeStyle Libre (15); otherwise 5. Fingersticks (BGM) get none.
 */
export function cgmMinutes(reading: { sampleInterval?: number | null; deviceId?: string | null }): number {
  if (reading.sampleInterval !== undefined && reading.sampleInterval !== null)
    return Math.floor(reading.sampleInterval / 60_000);
  const device = reading.deviceId ?? '';
  if (device.includes('AbbottFreeStyleLibre3')) return 5;
  if (device.includes('AbbottFreeStyleLibre')) return 15;
  return DEFAULT_CGM_MINUTES;
}
