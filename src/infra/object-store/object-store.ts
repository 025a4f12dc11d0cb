import type { Readable } from 'node:stream';

/** Object metadata as stored beside the bytes. */
export interface StoredObject {
  size: number;
  contentType: string | undefined;
}

/**
 * Bytes by key. Keys are `/`-separated paths chosen by the domains; drivers never interpret
 * them beyond prefixes. `put` stores all of the stream or nothing: a failed or aborted stream
 * leaves no object behind.
 */
export interface ObjectStore {
  readonly kind: 'filesystem' | 's3';
  put(key: string, body: Readable, options: { contentType: string }): Promise<StoredObject>;
  /** The object's bytes; rejects with ObjectNotFoundError when the key is absent. */
  get(key: string): Promise<Readable>;
  stat(key: string): Promise<StoredObject | null>;
  /** Removes the object; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  deletePrefix(prefix: string): Promise<void>;
  list(prefix: string): AsyncIterable<string>;
  /** Resolves when the store is reachable and writable enough to serve requests. */
  ping(): Promise<void>;
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
