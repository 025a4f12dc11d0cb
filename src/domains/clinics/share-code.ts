import { randomInt } from 'node:crypto';

/**
 * Clinic share codes: what a patient reads from a flyer or hears on the phone to find its clinic.
 * Three groups of four characters from an alphabet without look-alikes (no I/1, no O/0), as
 * Tidepool prints them (`ABCD-EFGH-JKLM`). Drawn from the operating system's random source:
 * 32 symbols × 12 places is 60 bits, far beyond guessing through a rate-limited API.
 */
export const SHARE_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const GROUPS = 3;
const GROUP_LENGTH = 4;
const SHARE_CODE_PATTERN = new RegExp(
  `^[${SHARE_CODE_ALPHABET}]{${GROUP_LENGTH}}(-[${SHARE_CODE_ALPHABET}]{${GROUP_LENGTH}}){${GROUPS - 1}}$`,
);

export function newShareCode(): string {
  const group = () =>
    Array.from({ length: GROUP_LENGTH }, () => SHARE_CODE_ALPHABET[randomInt(SHARE_CODE_ALPHABET.length)]).join('');
  return Array.from({ length: GROUPS }, group).join('-');
}

/**
 * The stored form of a code someone typed: upper-cased (lookups are case-insensitive) and trimmed;
 * null when it cannot be a share code, so a lookup needs no query to find nothing.
 */
export function canonicalShareCode(typed: string): string | null {
  const code = typed.trim().toUpperCase();
  return SHARE_CODE_PATTERN.test(code) ? code : null;
}
