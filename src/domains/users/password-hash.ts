import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { passwordHashes } from '../../infra/metrics';
import { ConcurrencyLimit } from '../../kernel/concurrency-limit';

/**
 * argon2id (memory-hard), by default with OWASP's baseline parameters, stored in PHC string
 * format so the parameters can be changed (PASSWORD_HASH_MEMORY_KIB, PASSWORD_HASH_PASSES)
 * without invalidating existing hashes.
 */
const derive = promisify(argon2);
let parameters: Argon2Cost = { memory: 19456, passes: 2, parallelism: 1 };
/** A hash of a random password at the current cost, checked when an account does not exist. */
let decoy: Promise<string> | undefined;
const TAG_LENGTH = 32;

interface Argon2Cost {
  memory: number;
  passes: number;
  parallelism: number;
}

/** libuv's default threadpool size, until limitConcurrentHashes is told the process's own. */
const DEFAULT_THREADPOOL_SIZE = 4;

/**
 * How many hashes may run at once: argon2 runs on libuv's threadpool, which file reads (blob
 * downloads) share, so two of its threads always stay free of hashing, and hashing never takes
 * more than half the cores, so requests keep the other half.
 */
export function hashSlots(threadpoolSize: number, cores = os.availableParallelism()): number {
  return Math.max(1, Math.min(threadpoolSize - 2, Math.ceil(cores / 2)));
}

/** One per process, as the threadpool it protects; hashes beyond it wait their turn. */
const hashing = new ConcurrencyLimit(hashSlots(DEFAULT_THREADPOOL_SIZE));

/** Sizes the hashing slots for the process's threadpool (UV_THREADPOOL_SIZE). */
export function limitConcurrentHashes(threadpoolSize: number): void {
  hashing.resize(hashSlots(threadpoolSize));
}

/** The cost of the hashes made from now on, one per process as the hashing slots. */
export function setPasswordHashCost({ memoryKib, passes }: { memoryKib: number; passes: number }): void {
  if (memoryKib === parameters.memory && passes === parameters.passes) return;
  parameters = { memory: memoryKib, passes, parallelism: 1 };
  // A decoy check must cost what a real one does.
  decoy = undefined;
}

async function tag(password: string, salt: Buffer, params: Argon2Cost): Promise<Buffer> {
  return hashing.run(() => {
    passwordHashes.inc();
    return derive('argon2id', { message: password, nonce: salt, tagLength: TAG_LENGTH, ...params });
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const used = parameters;
  const hash = await tag(password, salt, used);
  const { memory, passes, parallelism } = used;
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

const decoyHash = () => (decoy ??= hashPassword(randomBytes(12).toString('base64url')));

/** Spends the same time as a real check, so a missing account is not revealed by timing. */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  await verifyPassword(password, await decoyHash());
  return false;
}

/**
 * Password checks per second this process can hash: its hashing slots over the median time of
 * one check, timed one at a time (a few checks, at start-up). A busy machine measures fewer,
 * which errs on the safe side.
 */
export async function measureChecksPerSecond(samples = 3): Promise<number> {
  const stored = await decoyHash();
  const durations: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const start = performance.now();
    await verifyPassword('a password to time', stored);
    durations.push(performance.now() - start);
  }
  const median = durations.sort((a, b) => a - b)[Math.floor(samples / 2)];
  return (hashing.limit * 1000) / Math.max(median, 1);
}
