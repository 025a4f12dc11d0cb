import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * argon2id (memory-hard) with OWASP's baseline parameters, stored in PHC string format so the
 * parameters can be raised later without invalidating existing hashes.
 */
const derive = promisify(argon2);
const PARAMETERS: Argon2Cost = { memory: 19456, passes: 2, parallelism: 1 };
const TAG_LENGTH = 32;

interface Argon2Cost {
  memory: number;
  passes: number;
  parallelism: number;
}

async function tag(password: string, salt: Buffer, params: Argon2Cost): Promise<Buffer> {
  return derive('argon2id', { message: password, nonce: salt, tagLength: TAG_LENGTH, ...params });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await tag(password, salt, PARAMETERS);
  const { memory, passes, parallelism } = PARAMETERS;
  return `$argon2id$v=19$m=${memory},t=${passes},p=${parallelism}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([\w-]+)\$([\w-]+)$/;

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = PHC.exec(stored);
  if (!match) return false;
  const [, memory, passes, parallelism, salt, expected] = match;
  const params = { memory: Number(memory), passes: Number(passes), parallelism: Number(parallelism) };
  const actual = await tag(password, Buffer.from(salt, 'base64url'), params);
  const wanted = Buffer.from(expected, 'base64url');
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
}

let decoy: Promise<string> | undefined;

/** Spends the same time as a real check, so a missing account is not revealed by timing. */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(12).toString('base64url'));
  await verifyPassword(password, await decoy);
  return false;
}
