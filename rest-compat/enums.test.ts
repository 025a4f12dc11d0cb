import { describe, expect, it } from '@jest/globals';
import { thrown } from '../test/support/thrown';
import { BG_UNITS, CLINIC_SIZE, LegacyEnum, PERMISSION_NAME, SUMMARY_PERIOD } from './enums';

describe('LegacyEnum', () => {
  it('maps the legacy strings to GraphQL values and back', () => {
    expect(PERMISSION_NAME.values(['view', 'custodian', 'root'], 'names')).toEqual(['VIEW', 'CUSTODIAN', 'ROOT']);
    expect(PERMISSION_NAME.legacy('UPLOAD')).toBe('upload');
    expect(CLINIC_SIZE.value('1000+', 'clinicSize')).toBe('SIZE_1000_PLUS');
    expect(CLINIC_SIZE.legacy('SIZE_0_249')).toBe('0-249');
    expect(BG_UNITS.value('mmol/L', 'preferredBgUnits')).toBe('MMOL_L');
    expect(BG_UNITS.legacy('MG_DL')).toBe('mg/dL');
  });

  it('takes summary periods as Tidepool keys them (1d … 30d)', () => {
    expect(SUMMARY_PERIOD.legacyValues).toEqual(['1d', '7d', '14d', '30d']);
    expect(SUMMARY_PERIOD.value('14d', 'period')).toBe('FOURTEEN_DAYS');
    expect(SUMMARY_PERIOD.legacy('ONE_DAY')).toBe('1d');
  });

  it('refuses an unknown string listing the legacy values and naming the field (and the item of a list)', () => {
    expect(thrown(() => BG_UNITS.value('MG_DL', 'preferredBgUnits'))).toMatchObject({
      code: 'INVALID',
      message: 'preferredBgUnits must be one of mg/dL, mmol/L, not "MG_DL"',
      details: { field: 'preferredBgUnits' },
    });
    expect(thrown(() => PERMISSION_NAME.values(['view', 'admin'], 'names'))).toMatchObject({
      message: 'names[1] must be one of root, custodian, view, upload, note, not "admin"',
      details: { field: 'names' },
    });
    expect(thrown(() => BG_UNITS.value(3, 'units'))).toMatchObject({ message: 'units must be one of mg/dL, mmol/L' });
  });

  it('repeats only a name-like value in its refusal, never other text a client sent', () => {
    expect(thrown(() => BG_UNITS.value('<script>', 'units'))).toMatchObject({
      message: 'units must be one of mg/dL, mmol/L',
    });
  });

  it('does not take inherited properties for values', () => {
    const enumeration = new LegacyEnum({ a: 'A' });
    expect(thrown(() => enumeration.value('toString', 'field'))).toMatchObject({ code: 'INVALID' });
    expect(enumeration.legacy('UNKNOWN')).toBe('UNKNOWN');
  });
});
