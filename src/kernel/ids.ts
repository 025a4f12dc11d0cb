import { randomBytes } from 'node:crypto';

/** Random lowercase hex ids of the lengths the wire contract fixes (user 10, clinic 24, blob 32). */
export function hexId(length: number): string {
  return randomBytes(Math.ceil(length / 2))
    .toString('hex')
    .slice(0, length);
}
