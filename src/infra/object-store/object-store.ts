import type { Readable } from 'node:stream';

/** Object metadata as stored beside the bytes. */
export interface StoredObject {
  size: number;
  contentType: string | undefined;
}

export interface PutOptions {
  contentType: string;
  /**
   * The body's exact length, when the caller knows it. A body of any other length is refused
   * and nothing is stored. Lets the S3 driver stream the body in one request instead of parts.
   */
  size?: number;
  /**
   * The base64 MD5 the body should have, when the caller knows it. Drivers that send the bytes
   * over a network hand it to the server, which refuses a body that differs
   * (ObjectDigestMismatchError, nothing stored). Whether that check covers the whole body is
   * `checksDigest`'s answer; where it does not (the filesystem), callers verify digests themselves.
   */
  md5?: string;
}

/**
 * Bytes by key. Keys are `/`-separated paths chosen by the domains; drivers never interpret
 * them beyond prefixes. `put` stores all of the stream or nothing: a failed or aborted stream
 * leaves no object behind. An object `put` has resolved for survives a crash.
 */
export interface ObjectStore {
  readonly kind: 'filesystem' | 's3';
  put(key: string, body: Readable, options: PutOptions): Promise<StoredObject>;
  /**
   * Whether `put` with these options checks the whole body against `options.md5` itself,
   * storing nothing and rejecting with ObjectDigestMismatchError when it differs.
   */
  checksDigest(options: Pick<PutOptions, 'size' | 'md5'>): boolean;
  /** The object's bytes; rejects with ObjectNotFoundError when the key is absent. */
  get(key: string): Promise<Readable>;
  stat(key: string): Promise<StoredObject | null>;
  /** Removes the object; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Removes these objects (in as few requests as the store allows); missing keys are no error. */
  deleteMany(keys: readonly string[]): Promise<void>;
  deletePrefix(prefix: string): Promise<void>;
  list(prefix: string): AsyncIterable<string>;
  /** Resolves when the store is reachable and writable enough to serve requests. */
  ping(): Promise<void>;
  /**
   * Removes what writes that never finished left behind, unchanged since `before` (a process
   * killed mid-upload), and resolves with how many. Only the filesystem store keeps such remains
   * where it can find them (its temporary files); an S3 bucket ends unfinished multipart uploads
   * by its own lifecycle rule.
   */
  removeUnfinishedWrites(before: Date): Promise<number>;
}

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`object ${key} does not exist`);
    this.name = 'ObjectNotFoundError';
  }
}

/** The store could not be reached or refused the operation; callers answer 503. */
export class ObjectStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ObjectStoreUnavailableError';
  }
}

/** The body did not have the MD5 the caller announced (PutOptions.md5); nothing was stored. */
export class ObjectDigestMismatchError extends Error {
  constructor(readonly key: string) {
    super(`the body of ${key} does not have the announced MD5`);
    this.name = 'ObjectDigestMismatchError';
  }
}

/** The body was longer or shorter than PutOptions.size; nothing was stored. */
export class ObjectSizeMismatchError extends Error {
  constructor(key: string, declared: number, actual: string) {
    super(`the body of ${key} has ${actual} bytes, not the announced ${declared}`);
    this.name = 'ObjectSizeMismatchError';
  }
}
