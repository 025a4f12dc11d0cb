/** mg/dL per mmol/L, the factor Tidepool converts with. */
export const MG_DL_PER_MMOL_L = 18.01559;

/**
 * An mg/dL value as Tidepool stores it: in mmol/L, rounded half away from zero to 5 decimals
 * (140 mg/dL → 7.77105).
 */
export function mgdlToMmol(mgdl: number): number {
  return Math.trunc((mgdl / MG_DL_PER_MMOL_L) * 100000 + Math.sign(mgdl) * 0.5) / 100000;
}

/** The units GraphQL answers glucose values in (a clinic's preferredBgUnits takes the same two). */
export type GlucoseUnits = 'MG_DL' | 'MMOL_L';

/** The units of an answer outside a clinic: mmol/L, the unit Islet and Tidepool store and compute in. */
export const DEFAULT_GLUCOSE_UNITS: GlucoseUnits = 'MMOL_L';

/** A glucose value (or a difference or spread of values) stored in mmol/L, in `units`; never rounded. */
export const fromMmol = (mmol: number, units: GlucoseUnits): number =>
  units === 'MG_DL' ? mmol * MG_DL_PER_MMOL_L : mmol;

/** A glucose value given in `units`, in mmol/L to compare with stored values; never rounded. */
export const toMmol = (value: number, units: GlucoseUnits): number =>
  units === 'MG_DL' ? value / MG_DL_PER_MMOL_L : value;
