import { describe, expect, it } from '@jest/globals';
import { fromMmol, MG_DL_PER_MMOL_L, toMmol } from './units';

describe('glucose units', () => {
  it('answers mmol/L values in mg/dL by Tidepool’s factor, unrounded', () => {
    expect(MG_DL_PER_MMOL_L).toBe(18.01559);
    expect(fromMmol(7.77105, 'MG_DL')).toBe(7.77105 * 18.01559);
    expect(fromMmol(7.77105, 'MMOL_L')).toBe(7.77105);
  });

  it('reads bounds given in mg/dL as mmol/L, unrounded', () => {
    expect(toMmol(180, 'MG_DL')).toBe(180 / 18.01559);
    expect(toMmol(10, 'MMOL_L')).toBe(10);
  });
});
