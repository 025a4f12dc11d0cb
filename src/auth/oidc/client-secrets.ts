import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Client secrets are machine-generated and long (≥ 16 characters is enforced), so a salted
 * SHA-256 protects them at rest without a slow hash on every token request.
 */
export function hashClientSecret(secret: string): string {
  const salt = randomBytes(16).toString('base64url');
  return `sha256$${salt}$${digest(salt, secret)}`;
}

function digest(salt: string, secret: string): string {
  return createHash('sha256').update(`${salt}$${secret}`).digest('base64url');
}

export function verifyClientSecret(presented: string, stored: string): boolean {
  const [scheme, salt, expected] = stored.split('$');
  if (scheme !== 'sha256' || !salt || !expected) return false;
  const actual = Buffer.from(digest(salt, presented));
  const wanted = Buffer.from(expected);
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
}

export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}
