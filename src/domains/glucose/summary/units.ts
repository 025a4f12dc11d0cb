/** mg/dL per mmol/L, the factor Tidepool converts with. */
export const MG_DL_PER_MMOL_L = 18.01559;

/**
 * An mg/dL value as Tidepool stores it: in mmol/L, rounded half away from zero to 5 decimals
 * (140 mg/dL → 7.77105).
 */
export function mgdlToMmol(mgdl: number): number {
  return Math.trunc((mgdl / MG_DL_PER_MMOL_L) * 100000 + Math.sign(mgdl) * 0.5) / 100000;
}
