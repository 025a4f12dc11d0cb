import { createHash, randomBytes } from 'node:crypto';

/**
 * A key is 24 random bytes (192 bits) in URL-safe base64: the 32 characters of Tidepool's key
 * model (confirm/models/key.v1.yaml), and safe in a link's path or query without escaping.
 */
const KEY_BYTES = 24;
const KEY_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export function newConfirmationKey(): string {
  return randomBytes(KEY_BYTES).toString('base64url');
}

/**
 * What is stored and looked up instead of the key. The key has 192 random bits, so a fast hash
 * is enough (nothing to guess from the hash), and looking a key up by its hash through an index
 * leaks nothing about the key by its timing.
 */
export function hashConfirmationKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Whether `key` can be a confirmation key at all; anything else is refused as unknown. */
export function isConfirmationKey(key: unknown): key is string {
  return typeof key === 'string' && KEY_PATTERN.test(key);
}
