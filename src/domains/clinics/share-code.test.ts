import { canonicalShareCode, newShareCode, SHARE_CODE_ALPHABET } from './share-code';

describe('share codes', () => {
  it('are three groups of four readable characters, as Tidepool prints them', () => {
    for (let i = 0; i < 200; i++)
      expect(newShareCode()).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
  });

  it('leave out the characters read or heard as others', () => {
    for (const lookalike of ['I', '1', 'O', '0']) expect(SHARE_CODE_ALPHABET).not.toContain(lookalike);
    expect(new Set(SHARE_CODE_ALPHABET).size).toBe(32);
  });

  it('are drawn at random: no repeats among many', () => {
    const codes = new Set(Array.from({ length: 5000 }, newShareCode));
    expect(codes.size).toBe(5000);
  });

  it('are looked up case-insensitively, and anything else is no code', () => {
    expect(canonicalShareCode(' abcd-efgh-jkmn ')).toBe('ABCD-EFGH-JKMN');
    expect(canonicalShareCode('ABCD-EFGH-JKL0')).toBeNull();
    expect(canonicalShareCode('ABCDEFGHJKMN')).toBeNull();
    expect(canonicalShareCode('')).toBeNull();
  });
});
