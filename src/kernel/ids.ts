import { randomBytes } from 'node:crypto';

/** Random lowercase hex ids of the lengths the wire contract fixes (user 10, clinic 24, blob 32). */
export function hexId(length: number): string {
  return randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length);
}

/** Ids of 32 lowercase letters or digits: blobs, device logs and readings (Tidepool's data ids). */
export const ID32_PATTERN = /^[0-9a-z]{32}$/;

/** Ids of 32 lowercase hex digits: datasets (upload ids) and confirmation keys. */
export const HEX_ID32_PATTERN = /^[0-9a-f]{32}$/;

/** `count` random hex ids of `length`, from one draw of randomness (bulk inserts make thousands). */
export function hexIds(count: number, length: number): string[] {
  const width = Math.ceil(length / 2) * 2;
  const hex = randomBytes((width / 2) * count).toString('hex');
  return Array.from({ length: count }, (_, index) => hex.slice(index * width, index * width + length));
}
