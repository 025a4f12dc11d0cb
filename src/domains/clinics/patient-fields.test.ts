import {
  assertBirthDate,
  assertClinicPermissions,
  assertTagIds,
  assertTagName,
  checkPatientChanges,
  checkPatientFields,
  MAX_NAME_LENGTH,
  MAX_PATIENT_TAGS,
} from './patient-fields';

const TAG = '0123456789abcdef01234567';
const field = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { details?: { field?: string } }).details?.field;
  }
  return undefined;
};

describe('patient fields', () => {
  it('a whole record needs a full name and a birth date; optional fields become null', () => {
    expect(checkPatientFields({ fullName: 'Ann', birthDate: '2000-02-29' })).toEqual({
      fullName: 'Ann',
      birthDate: '2000-02-29',
      email: null,
      mrn: null,
      tags: [],
    });
    expect(field(() => checkPatientFields({ fullName: '  ', birthDate: '2000-01-01' }))).toBe('fullName');
    expect(field(() => checkPatientChanges({ fullName: 'n'.repeat(MAX_NAME_LENGTH + 1) }))).toBe('fullName');
    expect(field(() => checkPatientChanges({ birthDate: null }))).toBe('birthDate');
    expect(field(() => checkPatientChanges({ email: 'nope' }))).toBe('email');
    expect(field(() => checkPatientChanges({ mrn: '' }))).toBe('mrn');
  });

  it('a change keeps what it does not name and clears what it sets to null', () => {
    expect(checkPatientChanges({ mrn: null, tags: null })).toEqual({ mrn: null, tags: [] });
    expect(checkPatientChanges({})).toEqual({});
  });

  it('birth dates are real calendar days from 1900 to today', () => {
    expect(assertBirthDate('1900-01-01')).toBe('1900-01-01');
    for (const bad of [
      '2001-02-29',
      '1899-12-31',
      '2000-1-1',
      '2000-01-01T00:00:00Z',
      `${new Date().getFullYear() + 1}-01-01`,
    ])
      expect(field(() => assertBirthDate(bad))).toBe('birthDate');
  });

  it('tags are tag ids, each once, at most 50', () => {
    expect(assertTagIds([TAG])).toEqual([TAG]);
    expect(field(() => assertTagIds([TAG, TAG]))).toBe('tags');
    expect(field(() => assertTagIds(['ABCDEF0123456789abcdef01']))).toBe('tags[0]');
    expect(field(() => assertTagIds(Array.from({ length: MAX_PATIENT_TAGS + 1 }, () => TAG)))).toBe('tags');
  });

  it('a patient shares view, upload and note; custodian is kept, never added', () => {
    expect(assertClinicPermissions(['view', 'note'])).toEqual(['view', 'note']);
    expect(field(() => assertClinicPermissions([]))).toBe('permissions');
    expect(field(() => assertClinicPermissions(['custodian']))).toBe('permissions');
    expect(field(() => assertClinicPermissions(['root']))).toBe('permissions');
    expect(field(() => assertClinicPermissions(['view', 'view']))).toBe('permissions');
    expect(assertClinicPermissions(['custodian', 'view'], ['custodian', 'view', 'upload'])).toEqual([
      'custodian',
      'view',
    ]);
  });

  it('tag names follow Tidepool’s rule: 1 to 20 letters, digits, inner spaces and _+<>-', () => {
    for (const good of ['Type 1', 'CGM>14d', 'Ünïcødé', 'a-b_c+d<e']) expect(assertTagName(good)).toBe(good);
    for (const bad of ['', ' lead', 'x'.repeat(21), 'semi;colon', 'tab\u0000'])
      expect(field(() => assertTagName(bad))).toBe('name');
  });
});
