import { pipeline, Transform, type Readable } from 'node:stream';
import { objectStoreBytes, objectStoreCalls } from '../metrics';
import { ObjectNotFoundError, type ObjectStore, type PutOptions, type StoredObject } from './object-store';

/**
 * The configured store with its calls (by operation and outcome) and bytes (in and out) counted
 * at /metrics. A missing object is an answer, not a failure: `get` of an absent key counts ok.
 */
export class MeteredStore implements ObjectStore {
  /** `driver`: the store that holds the bytes. */
  constructor(readonly driver: ObjectStore) {}

  get kind(): ObjectStore['kind'] {
    return this.driver.kind;
  }

  async put(key: string, body: Readable, options: PutOptions): Promise<StoredObject> {
    const stored = await this.count('put', () => this.driver.put(key, body, options));
    objectStoreBytes.inc({ direction: 'in' }, stored.size);
    return stored;
  }

  checksDigest(options: Pick<PutOptions, 'size' | 'md5'>): boolean {
    return this.driver.checksDigest(options);
  }

  async get(key: string): Promise<Readable> {
    const body = await this.count(
      'get',
      () => this.driver.get(key),
      (error) => error instanceof ObjectNotFoundError,
    );
    // Counted as the reader takes the bytes: a 'data' listener on `body` itself would start it
    // flowing before the reader is attached, and the bytes it missed would be lost.
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        objectStoreBytes.inc({ direction: 'out' }, chunk.length);
        done(null, chunk);
      },
    });
    // An error of either side ends both: the reader sees the store's failure, the store sees an abort.
    pipeline(body, counted, () => undefined);
    return counted;
  }

  stat(key: string): Promise<StoredObject | null> {
    return this.count('stat', () => this.driver.stat(key));
  }

  delete(key: string): Promise<void> {
    return this.count('delete', () => this.driver.delete(key));
  }

  deleteMany(keys: readonly string[]): Promise<void> {
    return this.count('delete_many', () => this.driver.deleteMany(keys));
  }

  deletePrefix(prefix: string): Promise<void> {
    return this.count('delete_prefix', () => this.driver.deletePrefix(prefix));
  }

  list(prefix: string): AsyncIterable<string> {
    objectStoreCalls.inc({ operation: 'list', outcome: 'ok' });
    return this.driver.list(prefix);
  }

  ping(): Promise<void> {
    return this.count('ping', () => this.driver.ping());
  }

  removeUnfinishedWrites(before: Date): Promise<number> {
    return this.count('remove_unfinished', () => this.driver.removeUnfinishedWrites(before));
  }

  private async count<T>(operation: string, call: () => Promise<T>, isAnswer = (_error: unknown) => false): Promise<T> {
    try {
      const result = await call();
      objectStoreCalls.inc({ operation, outcome: 'ok' });
      return result;
    } catch (error) {
      objectStoreCalls.inc({ operation, outcome: isAnswer(error) ? 'ok' : 'error' });
      throw error;
    }
  }
}
